import { LEAD_DOCUMENT_FIELDS } from '../mapping/documents';
import { DELIVERY_ADAPTERS } from './catalog-vocabulary';
import type { DeliverySettings } from './catalog.types';
import { childPath, JsonReader, tracker } from './json-reader';
import { readFieldMap, readHeaders, readResponseRules } from './validate-mapping';

/** Keys each delivery adapter reads: the sandbox protocol is fixed, so only the json adapter maps fields and reads rules. */
const DELIVERY_KEYS = {
  sandbox: ['adapter', 'url', 'timeout_ms', 'headers'],
  json: ['adapter', 'url', 'timeout_ms', 'headers', 'field_map', 'response_rules', 'idempotent', 'revocation_url'],
} as const;

/** An own offer's `delivery` (docs/delivery-adapters.md); `questions`: the offer's question names, for `answers.<name>` sources. */
export function readDelivery(r: JsonReader, v: unknown, path: string, questions: string[] | undefined): DeliverySettings | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, DELIVERY_KEYS.json, ['adapter', 'url']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const adapter = r.oneOf(o.adapter, p('adapter'), DELIVERY_ADAPTERS);
  if (adapter === 'sandbox') {
    for (const key of DELIVERY_KEYS.json) {
      if (o[key] !== undefined && !(DELIVERY_KEYS.sandbox as readonly string[]).includes(key)) {
        r.fail(p(key), 'only the json adapter reads it (the sandbox school protocol is fixed)');
      }
    }
  }
  const out: Record<string, unknown> = { adapter, url: r.httpUrl(o.url, p('url')) };
  if (o.timeout_ms !== undefined) out.timeout_ms = r.integer(o.timeout_ms, p('timeout_ms'), 100, 120000);
  if (o.headers !== undefined) out.headers = readHeaders(r, o.headers, p('headers'));
  if (adapter === 'json' && o.field_map !== undefined) {
    const ctx = { body: "the school's body", document: 'the lead document', shape: LEAD_DOCUMENT_FIELDS, questions };
    out.field_map = readFieldMap(r, o.field_map, p('field_map'), ctx);
  }
  if (adapter === 'json' && o.response_rules !== undefined)
    out.response_rules = readResponseRules(r, o.response_rules, p('response_rules'));
  if (adapter === 'json' && o.idempotent !== undefined) out.idempotent = r.boolean(o.idempotent, p('idempotent'));
  if (adapter === 'json' && o.revocation_url !== undefined) out.revocation_url = r.httpUrl(o.revocation_url, p('revocation_url'));
  return ok() ? (out as unknown as DeliverySettings) : undefined;
}
