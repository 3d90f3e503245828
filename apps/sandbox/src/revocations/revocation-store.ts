import { Injectable } from '@nestjs/common';
import { BoundedMap } from '../shared/bounded-map';

export type SystemKind = 'school' | 'partner';

/** A notice as a simulated system recorded it: once per notice id, however often it arrived. */
export interface RecordedRevocation {
  notice_id: string;
  lead_id: string;
  offer_id: unknown;
  requested_at: unknown;
  respond_by: unknown;
  first_received_at: string;
  /** How many times it arrived (a sender that retried, or was restarted mid-send). */
  deliveries: number;
  acknowledged: boolean;
}

const MAX_SYSTEMS = 1_000;
const MAX_PER_SYSTEM = 1_000;

/** Revocation notices per simulated school and partner, bounded like the other receipts. */
@Injectable()
export class RevocationStore {
  private readonly systems = new BoundedMap<string, Map<string, RecordedRevocation>>(MAX_SYSTEMS);

  record(
    kind: SystemKind,
    name: string,
    noticeId: string,
    body: { lead_id: string } & Record<string, unknown>,
    acknowledged: boolean,
  ): void {
    const notices = this.systems.touch(`${kind}/${name}`, () => new Map());
    const known = notices.get(noticeId);
    if (known) {
      known.deliveries++;
      known.acknowledged ||= acknowledged;
      return;
    }
    if (notices.size >= MAX_PER_SYSTEM) notices.delete(notices.keys().next().value as string);
    notices.set(noticeId, {
      notice_id: noticeId,
      lead_id: body.lead_id,
      offer_id: body.offer_id,
      requested_at: body.requested_at,
      respond_by: body.respond_by,
      first_received_at: new Date().toISOString(),
      deliveries: 1,
      acknowledged,
    });
  }

  list(kind: SystemKind, name: string): RecordedRevocation[] {
    return [...this.systems.touch(`${kind}/${name}`, () => new Map()).values()];
  }

  clear(kind: SystemKind, name: string): number {
    const notices = this.systems.touch(`${kind}/${name}`, () => new Map());
    const n = notices.size;
    notices.clear();
    return n;
  }
}
