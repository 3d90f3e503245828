/** Limits of the sandbox's in-memory state (defaults suit demos and load tests). */
export interface SandboxOptions {
  /** Receipts kept per school or partner (oldest dropped first). */
  maxReceiptsPerName: number;
  /** Idempotency-Keys remembered per school or partner (oldest forgotten first). */
  maxIdempotencyKeysPerName: number;
  /** Distinct school and partner names tracked at once (least recently used dropped first). */
  maxNames: number;
}

export const DEFAULT_SANDBOX_OPTIONS: SandboxOptions = {
  maxReceiptsPerName: 10_000,
  maxIdempotencyKeysPerName: 10_000,
  maxNames: 1_000,
};

export const SANDBOX_OPTIONS = Symbol('SANDBOX_OPTIONS');
