import type { PartnerRef } from '@lr/contracts';
import { fillHeaders, MappingConfigError, type Environment, type PartnerSettings } from '@lr/domain';
import { PartnerConfigError } from '../partner-errors';

/**
 * The catalog's headers of a partner with their `${env:NAME}` references
 * filled in from partner-adapter's environment (libs/domain fillHeaders, as
 * for school deliveries), names lower-cased, then `own` (the adapter's:
 * Idempotency-Key), which win. An unset variable is a PartnerConfigError
 * naming the header and the variable, never a value: nothing is sent.
 */
export function partnerHeaders(partner: PartnerRef, env: Environment, own: Record<string, string> = {}): Record<string, string> {
  try {
    return { ...fillHeaders(settingsOf(partner).headers, env), ...own };
  } catch (e) {
    throw e instanceof MappingConfigError ? new PartnerConfigError(e.problem) : e;
  }
}

/** The partner's settings as the catalog stored them (checked by `catalog apply`); {} when it has none. */
export function settingsOf(partner: PartnerRef): PartnerSettings {
  return (partner.settings ?? {}) as PartnerSettings;
}

/** `http://host/partners/alpha?delay_ms=5` + `search` → `http://host/partners/alpha/search?delay_ms=5`. */
export function endpoint(baseUrl: string, path: string): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  return url;
}
