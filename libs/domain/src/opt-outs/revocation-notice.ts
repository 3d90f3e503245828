import type { DeliverySettings, PartnerSettings } from '../catalog/catalog.types';

/** Who accepted a lead, with the settings its adapter speaks through. */
export type RevocationBuyer =
  | { kind: 'school'; delivery: DeliverySettings | null }
  | { kind: 'partner'; adapter: string; baseUrl: string; settings: PartnerSettings | null };

/** Where a buyer's revocation notice is POSTed, with the header templates (`${env:NAME}`) of its adapter. */
export interface RevocationTarget {
  url: string;
  headers: Readonly<Record<string, string>> | undefined;
}

/**
 * Each adapter's revocation channel (docs/opt-outs.md): the sandbox
 * protocols' `…/revocations` beside their leads (a school's delivery URL
 * ending in `/leads`) or under the partner's base URL, with the query string
 * kept; a json school's `revocation_url`. A buyer without one (a json partner,
 * a json school without `revocation_url`) has null: its notice is for an
 * operator to send by other means, and `optout status` lists it.
 */
export function revocationTarget(buyer: RevocationBuyer): RevocationTarget | null {
  if (buyer.kind === 'school') {
    const d = buyer.delivery;
    if (!d) return null;
    if (d.adapter === 'json') return d.revocation_url ? { url: d.revocation_url, headers: d.headers } : null;
    const url = new URL(d.url);
    if (!/\/leads\/?$/.test(url.pathname)) return null;
    url.pathname = url.pathname.replace(/\/leads\/?$/, '/revocations');
    return { url: url.toString(), headers: d.headers };
  }
  if (buyer.adapter !== 'sandbox') return null;
  const url = new URL(buyer.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/revocations`;
  return { url: url.toString(), headers: buyer.settings?.headers };
}

/**
 * What a buyer is told: which of the leads it accepted (our lead id, which it
 * received as `lead_id` and as the delivery's Idempotency-Key), when the
 * consumer asked, and by when to honour it. Never contact data: the buyer has
 * the lead already, and the notice may travel through logs.
 */
export interface RevocationNoticeDocument {
  type: 'consent_revoked';
  notice_id: string;
  lead_id: string;
  offer_id: string;
  requested_at: string;
  respond_by: string;
}

export function revocationNoticeDocument(n: {
  id: string;
  leadId: string;
  offerId: string;
  receivedAt: Date;
  dueAt: Date;
}): RevocationNoticeDocument {
  return {
    type: 'consent_revoked',
    notice_id: n.id,
    lead_id: n.leadId,
    offer_id: n.offerId,
    requested_at: n.receivedAt.toISOString(),
    respond_by: n.dueAt.toISOString(),
  };
}
