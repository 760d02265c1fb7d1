import { monotonicFactory } from 'ulidx';
import type { IdGenerator } from '../../domain/ports/id-generator';

/** `<prefix><ULID>`: random, URL-safe, and sortable by creation time (monotonic within a process). */
export class UlidIdGenerator implements IdGenerator {
  private readonly ulid = monotonicFactory();
  next(prefix: string): string {
    return `${prefix}${this.ulid()}`;
  }
}
