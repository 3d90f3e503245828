/**
 * A search's results (from the `searches` row aliased `s`) with their
 * templates, best first: the lateral rows `u` (id, template, expires_at, n)
 * and the template `t` (docs/storage.md). The `results` view is the same
 * join for readers that do not need the search row.
 */
export const SHOWN = (s: string) =>
  `unnest(${s}.result_order, ${s}.result_templates, ${s}.result_expires) WITH ORDINALITY AS u(id, template, expires_at, n)
   JOIN result_templates t ON t.part_day = ${s}.part_day AND t.digest = u.template`;

/**
 * Why each offer of the search `s` was or was not shown, as a jsonb map
 * offer id -> decision: the stored decisions (`offer_decisions` keeps only
 * offers not shown, docs/storage.md) and, for every result, its offer as
 * `{"shown": true, "result_id": …}`.
 */
export const OFFER_DECISIONS = (s: string) =>
  `(${s}.offer_decisions || COALESCE((SELECT jsonb_object_agg(t.offer_id::text, jsonb_build_object('shown', true, 'result_id', u.id))
                                        FROM ${SHOWN(s)}), '{}'::jsonb))`;
