/**
 * An inbound Pix or boleto notice at an account's webhookUrl (/v1/connector-webhooks/{accountId}/{token}). The token
 * is the account's secret (sealed at rest, compared in constant time by the directory); a wrong one is not_found, as
 * for an account that does not exist. The notice is read and answered at once; each charge it cites is then checked
 * by asking the bank (CheckBankCharges), so what the notice says is never taken as true.
 */
import type { BankChargePayments } from '../../domain/ports/bank-charge-payments';
import type { ConnectorAccountDirectory } from '../../domain/ports/connector-account-directory';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { CheckBankCharges } from './check-bank-charges';
import type { PaymentDeps } from './payment-deps';

/** A notice cites at most this many charges; more are ignored (a poll still finds them). */
export const MAX_CHARGES_PER_NOTICE = 100;

export interface ReceivedNotice {
  /** The charges the notice cites that the account issued, to be checked. */
  readonly charges: number;
  /** Resolves once each cited charge was checked with the bank (the HTTP answer does not wait for it). */
  readonly checked: Promise<void>;
}

export class ReceiveBankNotice {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly directory: Pick<ConnectorAccountDirectory, 'findByWebhookToken'>,
    private readonly payments: BankChargePayments,
    private readonly checks: CheckBankCharges,
    private readonly onCheckFailed: (error: unknown, paymentId: string) => void,
  ) {}

  async execute(input: { accountId: string; token: string; body: unknown }): Promise<ReceivedNotice> {
    const opened = await this.directory.findByWebhookToken(input.accountId, input.token);
    if (!opened) throw new NotFoundError('connector account', input.accountId);
    const scope = opened.scope;
    const chargeIds = citedCharges(input.body).slice(0, MAX_CHARGES_PER_NOTICE);
    const paymentIds = await this.deps.transactor.read(async (tx) => {
      const found = await Promise.all(chargeIds.map((id) => this.payments.findByCharge(tx, scope, opened.account.id, id)));
      return [...new Set(found.filter((id): id is string => id !== null))];
    });
    return { charges: paymentIds.length, checked: this.checkAll(scope, paymentIds) };
  }

  private async checkAll(scope: TenantScope, paymentIds: readonly string[]): Promise<void> {
    for (const paymentId of paymentIds) {
      try {
        await this.checks.check(scope, paymentId);
      } catch (error) {
        // the charge's poll still finds it; one failed check does not stop the others
        this.onCheckFailed(error, paymentId);
      }
    }
  }
}

/**
 * The charge ids a notice cites: `{"acquirerPaymentId": "..."}` or `{"charges": [{"acquirerPaymentId": "..."}]}`
 * (docs/pix-boleto.md). Anything else cites nothing.
 */
export function citedCharges(body: unknown): string[] {
  if (!body || typeof body !== 'object') return [];
  const record = body as Record<string, unknown>;
  const single = typeof record.acquirerPaymentId === 'string' ? [record.acquirerPaymentId] : [];
  const listed = Array.isArray(record.charges)
    ? record.charges.flatMap((c) => (c && typeof c === 'object' && typeof (c as Record<string, unknown>).acquirerPaymentId === 'string' ? [(c as Record<string, string>).acquirerPaymentId!] : []))
    : [];
  return [...single, ...listed].filter((id) => id.length > 0 && id.length <= 128);
}
