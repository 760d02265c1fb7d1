import pg from 'pg';

/**
 * Records what reaches one database, one entry per round trip (the text of each query the `pg` driver sends), to
 * prove how many round trips a unit of work costs and what they carry. Other suites' services keep running on
 * other databases meanwhile, hence the filter. `stop` puts the driver back.
 */
export function recordRoundTrips(database: string): { readonly statements: string[]; stop(): void } {
  const statements: string[] = [];
  const originalQuery = pg.Client.prototype.query;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
    if (this.database === database) statements.push(String(typeof args[0] === 'string' ? args[0] : args[0]?.text));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (originalQuery as any).apply(this, args);
  };
  return {
    statements,
    stop: () => {
      pg.Client.prototype.query = originalQuery;
    },
  };
}
