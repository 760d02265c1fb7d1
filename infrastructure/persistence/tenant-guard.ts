/**
 * The tenant condition of a statement that finds its row by primary key: `(organization_id = ? and environment = ?)
 * is true`, two parameters. It still refuses another tenant's row, but PostgreSQL can only filter with it, never pick
 * an index by it.
 *
 * Why: without statistics (a new database, or a table that grew before autovacuum analyzed it, i.e. the first minute
 * of traffic), the planner gives each equality its default selectivity, so (organization_id, environment) looks more
 * selective than the unique id, and the tenant-leading indexes win: one payment update read all 20,000 payments of
 * its tenant through `payments_scope_created` (EXPLAIN on a fresh database). With `is true` the primary key is the
 * only index the statement can use.
 */
export function sameTenant(alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `(${column('organization_id')} = ? and ${column('environment')} = ?) is true`;
}
