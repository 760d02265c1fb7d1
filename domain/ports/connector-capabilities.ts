/**
 * What the connectors of this installation can do, as their adapters describe themselves (Describe), narrowed to what
 * the core processes: publishing a flow checks each node's accounts against it. Capabilities are the adapters', never
 * stored with an account.
 */
export interface ConnectorCapabilities {
  /**
   * The effective capabilities of every connector whose adapter can be described now, by slug (an account's are its
   * connector's). A connector whose adapter is down or not configured is absent: its capabilities are unknown, not
   * none. Bounded like every Describe of the catalog (its deadline), and never asked inside a unit of work.
   */
  known(): Promise<ReadonlyMap<string, readonly string[]>>;
}
