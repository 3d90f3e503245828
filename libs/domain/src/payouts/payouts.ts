import { amount, Cents, cents, centsOrNull } from '../money/money';

/**
 * The caller's payout on a result (affiliate-api.md, "Payout rules"): the
 * campaign offer's `payout` and `program_payouts` (CATALOG.md), never the
 * offer's price ("payout is the caller's own payout, never the offer's price
 * or anyone else's terms"). "When no payout is configured for the campaign,
 * the payout key is absent."
 */
export interface PayoutTerms {
  payout: Cents | null;
  programPayouts: Readonly<Record<string, Cents>> | null;
}

/** Terms from the catalog's amounts (JSON numbers) or PostgreSQL's numeric text. */
export function payoutTerms(payout: number | string | null, programPayouts: Readonly<Record<string, number | string>> | null): PayoutTerms {
  return {
    payout: centsOrNull(payout),
    programPayouts: programPayouts === null ? null : Object.fromEntries(Object.entries(programPayouts).map(([k, v]) => [k, cents(v)])),
  };
}

/** A result's program as shown to the caller: the contract's `programs[]` entry. */
export interface PayoutProgram {
  value: string;
  label: string;
  payout?: number;
}

export interface ResultPayouts {
  programs: PayoutProgram[];
  /** The result's `payout` (the best program payout), absent when none is configured. */
  payout?: Cents;
}

/** The program's own payout, else the campaign offer's payout; undefined when neither is configured. */
export function programPayout(terms: PayoutTerms, programValue: string): Cents | undefined {
  const own = terms.programPayouts && Object.hasOwn(terms.programPayouts, programValue) ? terms.programPayouts[programValue] : undefined;
  return own ?? terms.payout ?? undefined;
}

/**
 * Payouts of one result: each program carries `payout` only when one is
 * configured for it (the key is absent otherwise); the result's `payout` is the
 * best program payout, or the campaign offer's payout when the result has no
 * programs, and is absent when nothing is configured.
 */
export function resultPayouts(terms: PayoutTerms, programs: ReadonlyArray<{ value: string; label: string }>): ResultPayouts {
  let best: Cents | undefined;
  const shown = programs.map(({ value, label }) => {
    const payout = programPayout(terms, value);
    if (payout !== undefined && (best === undefined || payout > best)) best = payout;
    return { value, label, ...(payout !== undefined && { payout: amount(payout) }) };
  });
  if (programs.length === 0) best = terms.payout ?? undefined;
  return { programs: shown, ...(best !== undefined && { payout: best }) };
}

/**
 * The payout booked on a sale ("An accepted submit answers the payout booked
 * for that lead"): the chosen program's, else the offer's; null when none is
 * configured (the answer then has no `payout` key).
 */
export function bookedPayout(terms: PayoutTerms, programId: string | null): Cents | null {
  if (programId !== null) return programPayout(terms, programId) ?? null;
  return terms.payout;
}
