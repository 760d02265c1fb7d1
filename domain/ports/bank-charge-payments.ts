import type { TenantScope } from '../shared/environment';
import type { Transaction } from './transactor';

/** Finds the Pix or boleto payment of a charge a bank notice cites (by the connector account that issued it). */
export interface BankChargePayments {
  /** The payment whose charge `acquirerPaymentId` was issued at the account, in the account's scope; null: none. */
  findByCharge(tx: Transaction, scope: TenantScope, connectorAccountId: string, acquirerPaymentId: string): Promise<string | null>;
}
