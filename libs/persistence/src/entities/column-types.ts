import { ValueTransformer } from 'typeorm';

/** numeric(12,2) money: PostgreSQL returns a string to keep precision; amounts here fit a JS number. */
export const moneyTransformer: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null) => (v === null || v === undefined ? null : Number(v)),
};

export const MONEY = { type: 'numeric', precision: 12, scale: 2, transformer: moneyTransformer } as const;

/** Every `created_at` / `updated_at` column: timestamptz defaulting to now(). */
export const TIMESTAMP_NOW = { type: 'timestamptz', default: () => 'now()' } as const;
