import type { Organization } from '../../domain/organization/organization';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { OrganizationRepository } from '../../domain/ports/organization-repository';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import { DomainError } from '../../domain/shared/domain-error';

export interface CreateOrganizationInput {
  readonly name: string;
  readonly parentOrganizationId?: string | null;
}

/** Creates a tenant (operators' CLI; dashboard registration builds on the same step). */
export class CreateOrganization {
  constructor(
    private readonly transactor: Transactor,
    private readonly organizations: OrganizationRepository,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateOrganizationInput): Promise<Organization> {
    return this.transactor.run((tx) => this.within(tx, input));
  }

  /** The same step inside a caller's transaction (registration creates more in the same unit of work). */
  async within(tx: Transaction, input: CreateOrganizationInput): Promise<Organization> {
    const name = input.name.trim();
    if (name.length < 2 || name.length > 120) {
      throw new DomainError('validation_failed', 'name must be 2 to 120 characters', { param: 'name' });
    }
    const organization: Organization = {
      id: this.ids.next('org_'),
      name,
      parentOrganizationId: input.parentOrganizationId ?? null,
      createdAt: this.clock.now(),
    };
    await this.organizations.insert(tx, organization);
    return organization;
  }
}
