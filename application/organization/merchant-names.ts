/**
 * The merchant's name as a buyer sees it on the checkout (the organization's name), read on every public view and
 * confirmation. Kept in memory under the change feed (topic `organizations`, keyed by organization id), so the
 * checkout does not read the organization on each request, and a rename announced by any process is shown at once.
 */
import type { ChangeFeed } from '../../domain/ports/change-feed';
import type { Clock } from '../../domain/ports/clock';
import type { OrganizationRepository } from '../../domain/ports/organization-repository';
import type { Transactor } from '../../domain/ports/transactor';
import { ChangeAwareCache } from '../shared/change-aware-cache';

export class MerchantNames {
  private readonly memory: ChangeAwareCache<string | null> | null;

  constructor(
    private readonly transactor: Transactor,
    private readonly organizations: OrganizationRepository,
    remember?: { readonly changes: ChangeFeed; readonly clock: Clock },
  ) {
    // An unknown organization is not kept: one created a moment later must be named at once.
    this.memory = remember ? new ChangeAwareCache<string | null>(remember.changes, 'organizations', { clock: remember.clock, keep: (name) => name !== null }) : null;
  }

  /** The organization's name; null when there is no such organization. */
  async of(organizationId: string): Promise<string | null> {
    const read = async () => (await this.transactor.read((tx) => this.organizations.findById(tx, organizationId)))?.name ?? null;
    return this.memory ? this.memory.get(organizationId, read) : read();
  }
}
