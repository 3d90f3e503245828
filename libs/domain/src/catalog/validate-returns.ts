import { RETURN_POLICY_BOUNDS, RETURN_REASON_RE } from '../returns/returns';
import type { CatalogReturnPolicy } from './catalog.types';
import { childPath, JsonReader, tracker } from './json-reader';

/** An own offer's `returns` (docs/returns.md): a window in days, the reason codes a school may give, and whether a return refunds the cap. */
export function readReturns(r: JsonReader, v: unknown, path: string): CatalogReturnPolicy | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['window_days', 'reasons', 'refunds_cap'], ['window_days', 'reasons']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const { minWindowDays, maxWindowDays, maxReasons } = RETURN_POLICY_BOUNDS;
  const windowDays = r.integer(o.window_days, p('window_days'), minWindowDays, maxWindowDays);
  const list = r.array(o.reasons, p('reasons'), { nonEmpty: true });
  if (list && list.length > maxReasons) r.fail(p('reasons'), `must list at most ${maxReasons} reason codes, got ${list.length}`);
  const seen = new Map<string, string>();
  const reasons = (list ?? []).map((item, i) => {
    const at = childPath(p('reasons'), i);
    const code = r.string(item, at, {
      pattern: RETURN_REASON_RE,
      patternHint: `must be a reason code: lower-case letters, digits and _ starting with a letter (at most 40), got ${JSON.stringify(item)}`,
    });
    if (code === undefined) return code;
    const first = seen.get(code);
    if (first) r.fail(at, `duplicate reason code ${JSON.stringify(code)} (also ${first})`);
    else seen.set(code, at);
    return code;
  });
  const refundsCap = o.refunds_cap === undefined ? false : r.boolean(o.refunds_cap, p('refunds_cap'));
  return ok() ? { window_days: windowDays as number, reasons: reasons as string[], refunds_cap: refundsCap as boolean } : undefined;
}
