import type { Organization } from '../organization/organization';
import type { Transaction } from './transactor';

export interface OrganizationRepository {
  insert(tx: Transaction, organization: Organization): Promise<void>;
  findById(tx: Transaction, id: string): Promise<Organization | null>;
}
