/**
 * An open unit of work. Opaque to the domain and the application: repositories and the event outbox
 * accept it so that every write of one use case commits (or rolls back) together.
 */
export interface Transaction {
  readonly __unitOfWork: unique symbol;
}

/**
 * Runs work in one database transaction (`run`) or on a plain connection for reads (`read`). A `run` unit holds a
 * pooled connection from its first answered statement to its end, so its work must not wait for anything that needs
 * a connection of its own (another unit, a batched read, a cache that loads on a miss): with every connection held
 * that way, or embedded mode's single one, nothing would go on. Such things are done before the unit, or read with
 * its `tx`.
 */
export interface Transactor {
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  read<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}
