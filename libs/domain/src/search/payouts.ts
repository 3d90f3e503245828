/**
 * The caller's payout on a result (affiliate-api.md, "Payout rules"): the
 * campaign offer's `payout` and `program_payouts` (CATALOG.md), never the
 * offer's price. When nothing is configured the `payout` keys are absent.
 */
export interface PayoutConfig {
  payout: number | null;
  programPayouts: Record<string, number> | null;
}

/** A result's program as shown to the caller: the contract's `programs[]` entry. */
export interface PayoutProgram {
  value: string;
  label: string;
  payout?: number;
}

export interface ResultPayouts {
  programs: PayoutProgram[];
  payout?: number;
}

/** An amount in dollars rounded to cents (EPSILON keeps 1.005 from rounding down). */
export function toCents(amount: number): number {
  return Math.round((amount + Number.EPSILON) * 100) / 100;
}

/** The program's own payout, else the campaign offer's payout; undefined when neither is configured. */
export function programPayout(cfg: PayoutConfig, programValue: string): number | undefined {
  const own = cfg.programPayouts && Object.hasOwn(cfg.programPayouts, programValue) ? cfg.programPayouts[programValue] : undefined;
  const amount = own ?? cfg.payout ?? undefined;
  return amount === undefined ? undefined : toCents(amount);
}

/**
 * Payouts of one result: each program carries `payout` only when one is
 * configured for it (the key is absent otherwise); the result's `payout` is the
 * best program payout, or the campaign offer's payout when the result has no
 * programs, and is absent when nothing is configured.
 */
export function resultPayouts(cfg: PayoutConfig, programs: ReadonlyArray<{ value: string; label: string }>): ResultPayouts {
  const shown = programs.map(({ value, label }) => {
    const payout = programPayout(cfg, value);
    return { value, label, ...(payout !== undefined && { payout }) };
  });
  const amounts = shown.flatMap((p) => (p.payout === undefined ? [] : [p.payout]));
  let best: number | undefined;
  if (programs.length === 0) best = cfg.payout === null ? undefined : toCents(cfg.payout);
  else if (amounts.length > 0) best = Math.max(...amounts);
  return { programs: shown, ...(best !== undefined && { payout: best }) };
}
