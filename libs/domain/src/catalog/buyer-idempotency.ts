import type { DeliverySettings, JsonDeliverySettings } from './catalog.types';

/**
 * Whether a school's system answers a repeated `Idempotency-Key` (our lead
 * id) with its first answer and keeps one lead, so a call cut by a crash may
 * be sent again and its real answer decide the lead (docs/submit.md, At most
 * once): the sandbox school does; a json school when its catalog settings say
 * `idempotent: true`. A partner network's submit is claimed once by
 * partner-adapter, so it is never sent again.
 */
export function schoolHonoursIdempotencyKey(settings: Partial<DeliverySettings> | undefined): boolean {
  if (!settings) return false;
  return settings.adapter === 'sandbox' || (settings.adapter === 'json' && (settings as JsonDeliverySettings).idempotent === true);
}
