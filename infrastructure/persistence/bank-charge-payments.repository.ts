import type { BankChargePayments } from '../../domain/ports/bank-charge-payments';
import type { Transaction } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';

/** Bank charges' payments on PostgreSQL, by the payments_bank_charge index (Migration20261130000200BankChargeLookup). */
export class SqlBankChargePayments implements BankChargePayments {
  async findByCharge(tx: Transaction, scope: TenantScope, connectorAccountId: string, acquirerPaymentId: string): Promise<string | null> {
    const rows = await entityManager(tx).execute<Array<{ id: string }>>(
      `select id from payments
        where connector_account_id = ? and (doc->'acquirer'->>'acquirerPaymentId') = ? and method_type in ('pix', 'boleto')
          and organization_id = ? and environment = ?
        limit 1`,
      [connectorAccountId, acquirerPaymentId, scope.organizationId, scope.environment],
    );
    return rows[0]?.id ?? null;
  }
}
