import type { Recipient } from '../recipient/recipient';
import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

export interface RecipientListQuery {
  readonly limit: number;
  readonly startingAfter?: string;
}

/** Persistence of split recipients. Every read is scoped by organization and environment. */
export interface RecipientRepository {
  insert(tx: Transaction, recipient: Recipient): Promise<void>;
  update(tx: Transaction, recipient: Recipient): Promise<void>;
  /** `forUpdate` locks the row until commit. */
  find(tx: Transaction, scope: TenantScope, id: string, options?: { forUpdate?: boolean }): Promise<Recipient | null>;
  /** Up to limit + 1 recipients, newest first, after `startingAfter` when given. */
  list(tx: Transaction, scope: TenantScope, query: RecipientListQuery): Promise<Recipient[]>;
  /** Which of `ids` are recipients of the tenant, in one statement whatever their number (a payment's splits). */
  existingIds(tx: Transaction, scope: TenantScope, ids: readonly string[]): Promise<Set<string>>;
}
