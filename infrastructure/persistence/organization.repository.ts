import type { Organization } from '../../domain/organization/organization';
import type { OrganizationRepository } from '../../domain/ports/organization-repository';
import type { Transaction } from '../../domain/ports/transactor';
import { entityManager } from './mikro-orm-transactor';

export class SqlOrganizationRepository implements OrganizationRepository {
  async insert(tx: Transaction, organization: Organization): Promise<void> {
    await entityManager(tx).execute(
      `insert into organizations (id, name, parent_organization_id, created_at) values (?, ?, ?, ?)`,
      [organization.id, organization.name, organization.parentOrganizationId, organization.createdAt],
    );
  }

  async findById(tx: Transaction, id: string): Promise<Organization | null> {
    const rows = await entityManager(tx).execute<Array<{ id: string; name: string; parent_organization_id: string | null; created_at: Date }>>(
      `select id, name, parent_organization_id, created_at from organizations where id = ?`,
      [id],
    );
    const row = rows[0];
    return row ? { id: row.id, name: row.name, parentOrganizationId: row.parent_organization_id, createdAt: row.created_at } : null;
  }
}
