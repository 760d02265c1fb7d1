import { monotonicFactory } from 'ulidx';
import type { IdGenerator } from '../../domain/ports/id-generator';
import { RandomPool } from '../crypto/random-pool';

/**
 * ulidx's default source asks the OS once per character; a pool does not (see RandomPool). Each byte gives one
 * uniform base-32 digit (byte / 256 * 32 uses the top five bits).
 */
function pooledRandom(): () => number {
  const pool = new RandomPool();
  return () => pool.byte() / 256;
}

/** `<prefix><ULID>`: random, URL-safe, and sortable by creation time (monotonic within a process). */
export class UlidIdGenerator implements IdGenerator {
  private readonly ulid = monotonicFactory(pooledRandom());
  next(prefix: string): string {
    return `${prefix}${this.ulid()}`;
  }
}
