import { Recipient, type RecipientPrimitives } from '../../domain/recipient/recipient';
import type { RecipientListQuery, RecipientRepository } from '../../domain/ports/recipient-repository';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';
import { sameTenant } from './tenant-guard';

const parse = <T>(doc: unknown): T => (typeof doc === 'string' ? JSON.parse(doc) : doc) as T;

/** Recipients as rows of `recipients`: the aggregate in `doc`, the tenant and id in columns for lookups and paging. */
export class SqlRecipientRepository implements RecipientRepository {
  async insert(tx: Transaction, recipient: Recipient): Promise<void> {
    const r = recipient.toPrimitives();
    await entityManager(tx).execute(
      `insert into recipients (id, organization_id, environment, doc, created_at, updated_at) values (?, ?, ?, ?::jsonb, ?, ?)`,
      [r.id, r.organizationId, r.environment, JSON.stringify(r), r.createdAt, r.updatedAt],
    );
  }

  async update(tx: Transaction, recipient: Recipient): Promise<void> {
    const r = recipient.toPrimitives();
    await entityManager(tx).execute(
      `update recipients set doc = ?::jsonb, updated_at = ? where id = ? and ${sameTenant()}`,
      [JSON.stringify(r), r.updatedAt, r.id, r.organizationId, r.environment],
    );
  }

  async find(tx: Transaction, scope: TenantScope, id: string, options: { forUpdate?: boolean } = {}): Promise<Recipient | null> {
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from recipients where id = ? and ${sameTenant()}${options.forUpdate ? ' for update' : ''}`,
      [id, scope.organizationId, scope.environment],
    );
    return rows[0] ? Recipient.fromPrimitives(parse<RecipientPrimitives>(rows[0].doc)) : null;
  }

  async list(tx: Transaction, scope: TenantScope, query: RecipientListQuery): Promise<Recipient[]> {
    const params: unknown[] = [scope.organizationId, scope.environment];
    let where = '';
    if (query.startingAfter) {
      where += ' and id < ?';
      params.push(query.startingAfter);
    }
    params.push(query.limit + 1);
    const rows = await entityManager(tx).execute<Array<{ doc: unknown }>>(
      `select doc from recipients where organization_id = ? and environment = ?${where} order by id desc limit ?`,
      params,
    );
    return rows.map((r) => Recipient.fromPrimitives(parse<RecipientPrimitives>(r.doc)));
  }

  async existingIds(tx: Transaction, scope: TenantScope, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `select id from recipients where id in (select jsonb_array_elements_text(?::jsonb)) and ${sameTenant()}`,
      [JSON.stringify(ids), scope.organizationId, scope.environment],
    );
    return new Set(rows.map((r) => r.id));
  }
}
