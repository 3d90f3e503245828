import { DELIVERY_ADAPTERS } from '@lr/domain';
import { JsonSchoolAdapter } from './json-school.adapter';
import type { SchoolAdapter, SchoolDelivery, SchoolOutcome } from './school-adapter';
import { SchoolDeliveryError, SchoolTimeoutError, UnknownSchoolAdapterError } from './school-errors';
import { SandboxSchoolAdapter } from './sandbox-school.adapter';

/** How long a school has to answer when its settings do not say (catalog `delivery.timeout_ms`). */
export const DEFAULT_SCHOOL_TIMEOUT_MS = 8000;

type DeliveryAdapterName = (typeof DELIVERY_ADAPTERS)[number];

/** The catalog's `delivery.adapter` names this build speaks (the catalog check allows exactly these). */
export function builtInSchoolAdapters(): Record<DeliveryAdapterName, SchoolAdapter> {
  return { sandbox: new SandboxSchoolAdapter(), json: new JsonSchoolAdapter() };
}

/** The school adapters by name; tests may pass their own. */
export class SchoolAdapters {
  private readonly adapters: Map<string, SchoolAdapter>;

  constructor(adapters: Record<string, SchoolAdapter> = builtInSchoolAdapters()) {
    this.adapters = new Map(Object.entries(adapters));
  }

  /** The adapter the catalog names; UnknownSchoolAdapterError (a SchoolConfigError: nothing is sent) when there is none. */
  get(adapterName: string): SchoolAdapter {
    const adapter = this.adapters.get(adapterName);
    if (!adapter) throw new UnknownSchoolAdapterError(adapterName);
    return adapter;
  }
}

/**
 * Delivers with a deadline: `timeoutMs` (default the settings' timeout_ms, or
 * DEFAULT_SCHOOL_TIMEOUT_MS). At the deadline the adapter's signal aborts and
 * the promise rejects with SchoolTimeoutError at once, even if the adapter
 * ignores its signal.
 */
export async function deliverWithDeadline(
  adapters: SchoolAdapters,
  delivery: SchoolDelivery,
  timeoutMs: number = delivery.settings.timeout_ms ?? DEFAULT_SCHOOL_TIMEOUT_MS,
): Promise<SchoolOutcome> {
  const adapter = adapters.get(delivery.settings.adapter);
  const controller = new AbortController();
  // Built only when the deadline passes: an error captures a stack, which most deliveries never need.
  let timeout: SchoolTimeoutError | undefined;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        timeout = new SchoolTimeoutError(timeoutMs);
        controller.abort(timeout);
        reject(timeout);
      },
      Math.max(0, timeoutMs),
    );
  });
  try {
    return await Promise.race([adapter.deliver(delivery, controller.signal), expired]);
  } catch (e) {
    // An adapter that lets its HTTP client's own abort error through still timed out.
    if (controller.signal.aborted && timeout && !(e instanceof SchoolDeliveryError)) throw timeout;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
