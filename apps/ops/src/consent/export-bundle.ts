import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConsentSeal, ContactPart, contactKeys, normalizeKey, PersonKeySecret, recordText } from '@lr/domain';
import { ChainLine, ConsentEvent, ConsentLedger, ContactKeys, SealedContacts } from '@lr/persistence';
import { CliError } from '../cli-error';
import type { ContactOpener } from '../contact-opener';
import { renderBundleHtml, renderProcedure } from './bundle-html';
import {
  Bundle,
  BUNDLE_FILES,
  BUNDLE_FORMAT,
  BundleEvent,
  CANONICAL_FORM_TEXT,
  PERSON_KEYS_TEXT,
  recordFile,
  sealJson,
} from './bundle-model';

export type ExportQuery = { by: 'phone'; value: string } | { by: 'email'; value: string } | { by: 'lead'; value: string };

/**
 * The contact data of leads stored sealed (docs/security.md, Encryption at
 * rest), by lead id: the `personal` group as sent, opened; null when it
 * cannot be opened any more (its data key destroyed by a deletion). A lead
 * stored before sealing is absent: its `lead` column holds its contact data.
 */
export type SealedPersonal = (leadIds: readonly string[]) => Promise<ReadonlyMap<string, Record<string, string> | null>>;

/** SealedPersonal over the stored sealed documents and the key store. */
export function sealedPersonalOf(contacts: SealedContacts, opener: ContactOpener): SealedPersonal {
  return async (leadIds) => {
    const sealed = await contacts.ofLeads(leadIds);
    const opened = await opener.tryOpenAll<ContactPart>(sealed.map((s) => s.contact));
    return new Map(
      sealed.map((s, i) => [s.id, opened[i] ? ((opened[i].lead.personal as Record<string, string> | undefined) ?? {}) : null]),
    );
  };
}

/**
 * A dispute bundle of one person's consent events (docs/consent-ledger.md):
 * every chained event whose ledger row holds the person key of the email or
 * phone asked for (with --lead: the lead's own keys), with its proof. The
 * keys are made with the server secret, which the bundle never holds: it
 * verifies without it (PERSON_KEYS_TEXT).
 */
export async function buildBundle(
  ledger: ConsentLedger,
  q: ExportQuery,
  secret: PersonKeySecret,
  now: Date,
  sealedPersonal?: SealedPersonal,
): Promise<{ bundle: Bundle; lines: ChainLine[] }> {
  const person = await personOf(ledger, q, secret);
  const events = await ledger.personEvents({ ...person, leadId: q.by === 'lead' ? q.value : null });
  if (events.length === 0) throw new CliError(`no consent event in the ledger for that ${q.by}`);
  const chained = (await withOpenedContact(events, sealedPersonal))
    .filter((e) => e.link && e.record)
    .sort((a, b) => a.link!.position - b.link!.position);
  const seals = await ledger.seals();
  const head = (await ledger.summary()).head;
  const ranges = chained.map((e) => {
    const p = e.link!.position;
    const seal = sealOf(seals, p);
    return [Math.max(1, p - 1), Math.min(head, Math.max(p + 1, seal?.count ?? p))] as const;
  });
  const lines = await linesOf(ledger, ranges);
  const byPosition = new Map(lines.map((l) => [l.position, l]));
  const bundle: Bundle = {
    format: BUNDLE_FORMAT,
    exported_at: now.toISOString(),
    asked: q,
    person: { email_key: person.emailKey, phone_key: person.phoneKey },
    person_keys: PERSON_KEYS_TEXT,
    canonical_form: CANONICAL_FORM_TEXT,
    chain_file: BUNDLE_FILES.chain,
    events: chained.map((e) => eventOf(e, byPosition, sealOf(seals, e.link!.position))),
    unchained_lead_ids: events.filter((e) => !(e.link && e.record)).map((e) => e.leadId),
  };
  return { bundle, lines };
}

/** Writes the bundle into `dir` (made if missing; it must be empty). Returns the files written. */
export async function writeBundle(dir: string, bundle: Bundle, lines: readonly ChainLine[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0) throw new CliError(`${dir} is not empty: export into a new folder`);
  const files = new Map<string, string>();
  for (const ev of bundle.events) files.set(ev.record_file, recordText(ev.record));
  files.set(BUNDLE_FILES.events, `${JSON.stringify(bundle, null, 2)}\n`);
  files.set(BUNDLE_FILES.chain, chainText(lines));
  files.set(BUNDLE_FILES.html, renderBundleHtml(bundle));
  files.set(BUNDLE_FILES.procedure, renderProcedure(bundle));
  files.set(BUNDLE_FILES.sums, sumsText(files));
  for (const [name, text] of files) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text, 'utf8');
  }
  return [...files.keys()];
}

/** chain.tsv: one line per position (position, record hash, digest), tab-separated. */
export function chainText(lines: readonly ChainLine[]): string {
  return lines.map((l) => `${l.position}\t${l.recordHash}\t${l.digest}\n`).join('');
}

/** SHA256SUMS in `sha256sum -c` form, sorted by name. */
export function sumsText(files: ReadonlyMap<string, string>): string {
  return [...files.keys()]
    .filter((n) => n !== BUNDLE_FILES.sums)
    .sort()
    .map((n) => `${createHash('sha256').update(files.get(n)!, 'utf8').digest('hex')}  ${n}\n`)
    .join('');
}

async function personOf(ledger: ConsentLedger, q: ExportQuery, secret: PersonKeySecret): Promise<ContactKeys> {
  if (q.by === 'lead') {
    const keys = await ledger.leadKeys(q.value);
    if (!keys)
      throw new CliError(
        `lead ${q.value} has no consent event in the ledger (a test lead, a submit without a consent decision, or no such lead)`,
      );
    return keys;
  }
  // The same normalization and key as the duplicate rule (docs/duplicates.md).
  if (normalizeKey(q.by, q.value) === undefined)
    throw new CliError(`--${q.by}: cannot be normalized (${q.by === 'phone' ? 'a US number of 10 digits' : 'an address with one @'})`);
  return contactKeys(secret, { [q.by]: q.value });
}

/**
 * The events with the contact data of sealed leads opened in their context
 * (the `lead` column of a sealed lead holds none): an unreadable one shows as
 * erased (null), as a lead erased before sealing does. The consent evidence
 * itself is the ledger's and is kept either way.
 */
async function withOpenedContact(events: ConsentEvent[], sealedPersonal: SealedPersonal | undefined): Promise<ConsentEvent[]> {
  if (!sealedPersonal) return events;
  const opened = await sealedPersonal([...new Set(events.map((e) => e.leadId))]);
  return events.map((e) => (opened.has(e.leadId) ? { ...e, context: { ...e.context, personal: opened.get(e.leadId) ?? null } } : e));
}

/** The first seal that covers a position (seals are sorted by count). */
function sealOf(seals: readonly ConsentSeal[], position: number): ConsentSeal | null {
  return seals.find((s) => s.count >= position) ?? null;
}

/** The chain lines of the ranges, each line once. */
async function linesOf(ledger: ConsentLedger, ranges: ReadonlyArray<readonly [number, number]>): Promise<ChainLine[]> {
  const merged: Array<[number, number]> = [];
  for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const lines: ChainLine[] = [];
  for (const [a, b] of merged) lines.push(...(await ledger.segment(a, b)));
  return lines;
}

function eventOf(e: ConsentEvent, lines: ReadonlyMap<number, ChainLine>, seal: ConsentSeal | null): BundleEvent {
  const link = e.link!;
  const p = link.position;
  const prev = lines.get(p - 1);
  const next = lines.get(p + 1);
  const personal = e.context.personal;
  return {
    position: p,
    lead_id: e.leadId,
    record_file: recordFile(p),
    record: e.record!,
    record_hash: link.recordHash,
    prev_digest: link.prevDigest,
    digest: link.digest,
    previous: prev ? { position: prev.position, digest: prev.digest } : null,
    next: next ? { position: next.position, record_hash: next.recordHash, digest: next.digest } : null,
    seal: sealJson(seal),
    context: {
      school_name: e.context.schoolName,
      offer_name: e.context.offerName,
      campaign_name: e.context.campaignName,
      affiliate_name: e.context.affiliateName,
      program_label: e.context.programLabel,
      contact: personal
        ? {
            first_name: personal.first_name ?? null,
            last_name: personal.last_name ?? null,
            email: personal.email ?? null,
            phone: personal.phone ?? null,
          }
        : null,
    },
  };
}
