/**
 * Money is exact decimal end to end (DEVELOPERS.md): amounts are whole cents
 * in memory, `numeric(12,2)` text in PostgreSQL, and the shortest decimal that
 * reads back as the same amount in JSON (`12.5`, `0.29`). Catalog amounts are
 * validated to at most two decimals, so reading them as cents is exact.
 */
export type Cents = number & { readonly __cents: unique symbol };

/** The largest amount numeric(12,2) holds, in cents. */
const MAX_CENTS = 999_999_999_999;

/** Cents from a decimal amount: a JSON number of the catalog or PostgreSQL's numeric text ("12.50"). */
export function cents(amount: number | string): Cents {
  if (typeof amount === 'string') {
    const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(amount.trim());
    if (!m) throw new RangeError(`not a money amount: ${JSON.stringify(amount)}`);
    const value = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
    return checked(m[1] === '-' ? -value : value);
  }
  if (!Number.isFinite(amount)) throw new RangeError(`not a money amount: ${amount}`);
  // The decimal the number stands for, rounded half up to cents: 1.005 is 1.01 (binary 1.00499… must not round down).
  // Catalog amounts have at most two decimals, so for them this is exact.
  const [whole, frac] = Math.abs(amount).toFixed(8).split('.');
  const value = Number(whole) * 100 + Number(frac.slice(0, 2)) + (frac[2] >= '5' ? 1 : 0);
  return checked(amount < 0 ? -value : value);
}

/** Cents from a decimal amount that may be absent. */
export const centsOrNull = (amount: number | string | null | undefined): Cents | null =>
  amount === null || amount === undefined ? null : cents(amount);

/** The amount as PostgreSQL numeric text: "12.50". */
export function decimalText(c: Cents): string {
  const sign = c < 0 ? '-' : '';
  const abs = Math.abs(c);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The amount as the contract's JSON number (`payout`): the shortest decimal that reads back as these cents. */
export function amount(c: Cents): number {
  return c / 100;
}

export const ZERO = 0 as Cents;

/** The exact sum of two amounts (whole cents: no rounding ever happens). */
export function addCents(a: Cents, b: Cents): Cents {
  return checked(a + b);
}

/** The exact sum of amounts: 10,000 payouts of 0.10 are 1000.00, where adding the JS numbers 0.1 is not. */
export function sumCents(amounts: Iterable<Cents>): Cents {
  let total = ZERO;
  for (const a of amounts) total = addCents(total, a);
  return total;
}

function checked(value: number): Cents {
  if (!Number.isSafeInteger(value) || Math.abs(value) > MAX_CENTS) throw new RangeError(`money amount out of range: ${value} cents`);
  return value as Cents;
}
