/**
 * A search's results (from the `searches` row aliased `s`) with their
 * templates, best first: the lateral rows `u` (id, template, expires_at, n)
 * and the template `t` (docs/storage.md). The `results` view is the same
 * join for readers that do not need the search row.
 */
export const SHOWN = (s: string) =>
  `unnest(${s}.result_order, ${s}.result_templates, ${s}.result_expires) WITH ORDINALITY AS u(id, template, expires_at, n)
   JOIN result_templates t ON t.part_day = ${s}.part_day AND t.digest = u.template`;
