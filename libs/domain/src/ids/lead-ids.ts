import { v7 } from 'uuid';

/**
 * A new `svc_lead_id` (a search's or a submit's): a UUIDv7 (RFC 9562), which
 * carries the time it was made. The search's storage is partitioned by that
 * day (docs/storage.md), so a lookup by id reads one day's partition.
 */
export function newLeadId(at: number = Date.now()): string {
  return v7({ msecs: at });
}
