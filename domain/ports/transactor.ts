/**
 * An open unit of work. Opaque to the domain and the application: repositories and the event outbox
 * accept it so that every write of one use case commits (or rolls back) together.
 */
export interface Transaction {
  readonly __unitOfWork: unique symbol;
}

/** Runs work in one database transaction (`run`) or on a plain connection for reads (`read`). */
export interface Transactor {
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  read<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}
