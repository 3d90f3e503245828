import { type ContactPart, joinContact, type Lead, type StoredContact } from '@lr/domain';
import type { ContactReveal, LeadStoryRows, SealedContacts } from '@lr/persistence';
import type { ContactOpener } from '../contact-opener';

/**
 * The contact data of one search or lead, unmasked, for `ops lead show
 * --reveal` (docs/operator-cli.md): the sealed part opened and joined to the
 * readable part (libs/domain joinContact), or the clear columns of a record
 * stored before sealing. `erased`: its sealed part cannot be opened any more
 * (its data key was destroyed by a deletion).
 */
export type RevealedContact =
  | { of: 'search' | 'lead'; id: string; stored: 'sealed' | 'clear'; lead: Lead; consumer_ip: string; tracking: Record<string, string> }
  | { of: 'search' | 'lead'; id: string; stored: 'erased' };

/** The text shown for a record whose sealed part cannot be opened. */
export const ERASED_CONTACT = 'contact data erased (unreadable)';

export interface RevealRequest {
  /** The svc_lead_id asked for: a search's id or a submit's. */
  id: string;
  operator: string;
  reason: string | null;
}

/**
 * Reveals the contact data of the record `req.id` names, from the rows the
 * story was read from. The reveal is recorded (`contact_reveals`) before
 * anything is opened, so no contact data is shown without its audit row; a
 * record whose key is gone shows as erased.
 */
export async function revealContact(
  deps: { contacts: SealedContacts; opener: ContactOpener },
  rows: LeadStoryRows,
  req: RevealRequest,
): Promise<{ reveal: ContactReveal; contact: RevealedContact }> {
  const of = rows.is === 'search' ? 'search' : 'lead';
  const stored = storedOf(rows, req.id);
  const reveal = await deps.contacts.recordReveal(req.id, req.operator, req.reason);
  const sealed = of === 'search' ? await deps.contacts.ofSearch(req.id) : ((await deps.contacts.ofLeads([req.id]))[0]?.contact ?? null);
  if (!sealed) return { reveal, contact: { of, id: req.id, stored: 'clear', ...shown(stored) } };
  const [part] = await deps.opener.tryOpenAll<ContactPart>([sealed]);
  if (!part) return { reveal, contact: { of, id: req.id, stored: 'erased' } };
  return { reveal, contact: { of, id: req.id, stored: 'sealed', ...shown(joinContact(stored, part)) } };
}

/** The record's contact columns as stored (the readable part, or the clear values of a record stored before sealing). */
function storedOf(rows: LeadStoryRows, id: string): StoredContact {
  const row = rows.is === 'search' ? rows.search : rows.submits.find((s) => s.id === id);
  if (!row) throw new Error(`the rows read hold no record ${id}`);
  return {
    lead: row.lead,
    tracking: row.tracking ?? {},
    consumerIp: row.consumer_ip,
    ipSource: row.ip_source as StoredContact['ipSource'],
  };
}

function shown(c: StoredContact): { lead: Lead; consumer_ip: string; tracking: Record<string, string> } {
  return { lead: c.lead, consumer_ip: c.consumerIp, tracking: c.tracking };
}

/** The revealed contact for a terminal, below the (masked) story. */
export function revealLines(r: { reveal: ContactReveal; contact: RevealedContact }): string[] {
  const c = r.contact;
  const head = `Contact data of ${c.of} ${c.id} (revealed to ${r.reveal.operator} at ${r.reveal.revealedAt.toISOString()}, recorded as reveal ${r.reveal.id})`;
  if (c.stored === 'erased') return [head, `  ${ERASED_CONTACT}`];
  const lines = [head, `  stored ${c.stored === 'sealed' ? 'sealed (opened)' : 'in the clear (before sealing)'}`];
  for (const [group, fields] of Object.entries(c.lead) as Array<[string, Record<string, string> | string]>) {
    if (typeof fields !== 'object') lines.push(`  ${group}: ${fields}`);
    else for (const [name, value] of Object.entries(fields)) lines.push(`  ${group}.${name}: ${value}`);
  }
  lines.push(`  consumer ip: ${c.consumer_ip || '-'}`);
  const tracking = Object.entries(c.tracking);
  if (tracking.length > 0) lines.push(`  tracking: ${tracking.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  return lines;
}

/** `lead reveals` for a terminal: who revealed the record's contact data, when and why. */
export function revealsLines(id: string, reveals: readonly ContactReveal[]): string[] {
  if (reveals.length === 0) return [`No reveal of the contact data of ${id}.`];
  return [
    `Reveals of the contact data of ${id} (${reveals.length}):`,
    ...reveals.map((r) => `  ${r.revealedAt.toISOString()}  ${r.operator}  ${r.reason ?? '(no reason given)'}`),
  ];
}

/** `lead show --reveal --json`: the story's `revealed` key. */
export function revealedJson(r: { reveal: ContactReveal; contact: RevealedContact }): unknown {
  return {
    operator: r.reveal.operator,
    reason: r.reveal.reason,
    revealed_at: r.reveal.revealedAt.toISOString(),
    ...r.contact,
    ...(r.contact.stored === 'erased' ? { note: ERASED_CONTACT } : {}),
  };
}
