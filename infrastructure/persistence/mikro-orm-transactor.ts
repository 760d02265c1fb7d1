import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import type { Orm } from './orm';

/** The entity manager behind an opaque Transaction handle (repositories are the only ones to unwrap it). */
export function entityManager(tx: Transaction): EntityManager {
  return tx as unknown as EntityManager;
}

/**
 * Units of work on forked entity managers. Listeners run after a commit succeeds (the outbox relay is
 * nudged that way, so events leave within milliseconds instead of at the next poll).
 */
export class MikroOrmTransactor implements Transactor {
  private readonly afterCommitListeners: Array<() => void> = [];

  constructor(private readonly orm: Orm) {}

  onCommit(listener: () => void): void {
    this.afterCommitListeners.push(listener);
  }

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const em = this.orm.em.fork({ clear: true, useContext: false });
    const result = await em.transactional(async (txEm) => work(txEm as unknown as Transaction));
    for (const listener of this.afterCommitListeners) listener();
    return result;
  }

  async read<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return work(this.orm.em.fork({ clear: true, useContext: false }) as unknown as Transaction);
  }
}
