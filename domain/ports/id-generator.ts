/** Identifiers: the spec's prefix, then a random, URL-safe, time-sortable body (ULID). */
export interface IdGenerator {
  next(prefix: string): string;
}
