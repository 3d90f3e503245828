import escapeHtml from 'escape-html';
import { CONSENT_RECORD_FORM_1 } from '@lr/domain';
import { Bundle, BundleEvent, BUNDLE_FILES, BUNDLE_FORMAT_1 } from './bundle-model';

/** Step 6 of a format-1 bundle: its records hold the plain sha256 of the normalized email and phone. */
const PLAIN_HASHES_STEP = [
  "6. A person's email and phone are in the records only as sha256 of their normalized form:",
  "   printf '%s' 'jane.doe@example.com' | sha256sum   (email: trimmed, lower case; gmail.com: no dots, no +tag)",
  "   printf '%s' '5551234567' | sha256sum             (phone: the 10 US digits)",
];

/** Step 6 of a format-2 bundle: the records hold person keys (the bundle's person_keys says it in full). */
const PERSON_KEYS_STEP = [
  "6. A person's email and phone are in the records only as person keys (person_keys in the events file):",
  "   printf '%s' 'jane.doe@example.com' | sha256sum   (email: trimmed, lower case; gmail.com: no dots, no +tag)",
  "   printf '%s' '5551234567' | sha256sum             (phone: the 10 US digits)",
  "   printf '%s' <that sha256> | openssl dgst -sha256 -hmac <the service's secret>   gives email_key or phone_key.",
  '   Steps 1 to 5 need no secret. The secret is not in this bundle: the service operator shows that last step.',
  '   Records in form lead-router/consent-record/1 (chained before person keys) hold the sha256 itself (email_sha256, phone_sha256).',
];

/**
 * The bundle's human-readable page: one section per consent event with the
 * statement exactly as shown, the button, the time, the IP, the
 * certificates, school and offer, and its place in the chain. A pure function
 * of consent-events.json: `consent verify-bundle` renders it again and
 * compares it byte for byte. Self-contained (no script, no external file).
 */
export function renderBundleHtml(b: Bundle): string {
  const e = (v: string | number | boolean | null | undefined) =>
    v === null || v === undefined ? '<span class="none">none</span>' : escapeHtml(String(v));
  const row = (label: string, value: string, field?: string) =>
    `<tr${field ? ` data-field="${field}"` : ''}><th>${label}</th><td>${value}</td></tr>`;
  const section = (ev: BundleEvent) => {
    const r = ev.record;
    const c = ev.context;
    return `<section class="event" id="position-${ev.position}">
<h2>Consent event ${ev.position} of the chain, ${e(r.consented_at)}</h2>
<p class="statement-label">Statement shown to the consumer (exactly as shown):</p>
<blockquote class="statement" data-field="statement">${r.statement === null ? '<span class="none">no statement was shown</span>' : escapeHtml(r.statement)}</blockquote>
<table>
${row('Consumer decision (tcpa_consent)', r.tcpa_consent ? 'consented' : 'declined', 'tcpa_consent')}
${row('Button label', e(r.button_label), 'button_label')}
${row('Time (UTC)', e(r.consented_at), 'consented_at')}
${row('Consumer IP', `${e(r.ip)} (${r.ip_source === 'consumer' ? "the consumer's address as sent by the affiliate" : "the affiliate's server address: no valid consumer address was sent"})`, 'ip')}
${row('Consent certificate (form_cert_url)', e(r.form_cert_url), 'form_cert_url')}
${row('Consent certificate (universal_lead_cert)', e(r.universal_lead_cert), 'universal_lead_cert')}
${row('School', `${e(c.school_name)} <code>${e(r.school_id)}</code>`, 'school')}
${row('Offer', `${e(c.offer_name)} <code>${e(r.offer_id)}</code>`, 'offer')}
${row('Program', `${e(c.program_label)} <code>${e(r.program_id)}</code>`)}
${row('Campaign', `${e(c.campaign_name)} <code>${e(r.campaign_id)}</code>`)}
${row('Affiliate', `${e(c.affiliate_name)} <code>${e(r.affiliate_id)}</code>`)}
${row('Lead (svc_lead_id)', `<code>${e(r.lead_id)}</code> (${r.kind === 'result_submit' ? `result submit on search <code>${e(r.search_id)}</code>` : 'direct post'})`)}
${row('Contact as stored at export (not part of the proof)', c.contact ? e([c.contact.first_name, c.contact.last_name, c.contact.email, c.contact.phone].filter((x) => x).join(', ')) : '<span class="none">erased</span>')}
${
  r.form === CONSENT_RECORD_FORM_1
    ? `${row('Email hash in the record', `<code>${e(r.email_sha256)}</code>`)}\n${row('Phone hash in the record', `<code>${e(r.phone_sha256)}</code>`)}`
    : `${row('Email person key in the record', `<code>${e(r.email_key)}</code>`, 'email_key')}\n${row('Phone person key in the record', `<code>${e(r.phone_key)}</code>`, 'phone_key')}`
}
</table>
<h3>Proof</h3>
<table class="proof">
${row('Chain position', String(ev.position), 'position')}
${row('Record file', `<code>${e(ev.record_file)}</code>`)}
${row('Record hash', `<code>${e(ev.record_hash)}</code>`)}
${row('Previous digest', `<code>${e(ev.prev_digest)}</code>${ev.previous ? ` (position ${ev.previous.position})` : ' (the first record of the chain)'}`)}
${row('Digest', `<code>${e(ev.digest)}</code>`, 'digest')}
${row('Next record', ev.next ? `position ${ev.next.position}: record hash <code>${e(ev.next.record_hash)}</code>, digest <code>${e(ev.next.digest)}</code>` : '<span class="none">none yet (the head of the chain when exported)</span>')}
${row('Sealed', ev.seal ? `day ${e(ev.seal.day)} (sealed ${e(ev.seal.sealed_at)}): ${ev.seal.count} records, head digest <code>${e(ev.seal.head_digest)}</code>` : '<span class="none">not sealed yet: the day was not over when exported</span>', 'seal')}
</table>
</section>`;
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Consent events: ${escapeHtml(b.asked.by)} ${escapeHtml(b.asked.value)}</title>
<style>
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 2em; color: #111; max-width: 60em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-top: 2px solid #333; padding-top: .8em; } h3 { font-size: 1em; }
blockquote.statement { font-size: 1.05em; border-left: 4px solid #1a4d8f; margin: .5em 0 1em 0; padding: .6em 1em; background: #f2f5fa; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; } th { text-align: left; vertical-align: top; width: 16em; padding: .25em .6em .25em 0; font-weight: 600; }
td { padding: .25em 0; word-break: break-all; } code { font-size: .85em; } .none { color: #777; font-style: italic; }
</style>
</head>
<body>
<h1>Consent events of ${escapeHtml(b.asked.by)} ${escapeHtml(b.asked.value)}</h1>
<p>Exported ${escapeHtml(b.exported_at)}: ${b.events.length} consent event${b.events.length === 1 ? '' : 's'} found through the ${b.format === BUNDLE_FORMAT_1 ? 'normalized hashes' : 'person keys'} of the person's email and phone. Each record below is proven by its record file, its digest and the chain up to the seal of its day: see <code>${BUNDLE_FILES.procedure}</code>. Names, program labels and contact data are shown as stored when exported and are not part of the proof.</p>
${b.format === BUNDLE_FORMAT_1 ? '' : `<p class="person-keys">${escapeHtml(b.person_keys)}</p>\n`}${b.unchained_lead_ids.length > 0 ? `<p>Not yet chained when exported (not proven here): ${b.unchained_lead_ids.map((id) => `<code>${escapeHtml(id)}</code>`).join(', ')}</p>\n` : ''}${b.events.map(section).join('\n')}
</body>
</html>
`;
}

/** VERIFY.txt: how to check this bundle with sha256sum alone, with the first event's values filled in. A pure function of the bundle. */
export function renderProcedure(b: Bundle): string {
  const first = b.events[0];
  const example = first
    ? [
        `Example, the event at position ${first.position}:`,
        `  sha256sum ${first.record_file}`,
        `    -> ${first.record_hash}`,
        `  printf '%s%s' ${first.prev_digest} ${first.record_hash} | sha256sum`,
        `    -> ${first.digest}`,
        first.seal
          ? `  the chain lines in ${BUNDLE_FILES.chain} continue from position ${first.position} to ${first.seal.count}, whose digest is the head sealed on ${first.seal.day}:\n    ${first.seal.head_digest}`
          : '  not sealed yet when exported.',
      ]
    : ['(no event)'];
  return [
    'How to check this consent bundle without our software',
    '======================================================',
    '',
    `Canonical form: ${b.canonical_form}`,
    '',
    `1. Every file is intact: sha256sum -c ${BUNDLE_FILES.sums}`,
    `2. For each event of ${BUNDLE_FILES.events} (events[].record_file): sha256sum <record file>`,
    "   gives its record_hash. The record file is the event's record in canonical form:",
    '   any JCS implementation (RFC 8785) applied to events[].record gives the same bytes.',
    "3. Its digest: printf '%s%s' <prev_digest> <record_hash> | sha256sum",
    `4. Its neighbours: ${BUNDLE_FILES.chain} has one line per position: position, record hash, digest (tab-separated).`,
    "   The line before the event holds its prev_digest; the event's own line its record hash and digest;",
    "   each next line's digest is printf '%s%s' <digest of the line before> <its record hash> | sha256sum.",
    '5. Its seal: following the lines up to position seal.count reaches seal.head_digest. The seal of each',
    "   day is also written to the service's logs when it is made; compare seal.head_digest with that copy.",
    ...(b.format === BUNDLE_FORMAT_1 ? PLAIN_HASHES_STEP : PERSON_KEYS_STEP),
    '',
    ...example,
    '',
    `Or, with the service's operator CLI and no database: npm run ops -- consent verify-bundle <this folder>`,
    '',
  ].join('\n');
}
