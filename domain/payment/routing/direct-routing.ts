/**
 * Direct routing (no published flow), contract.md section 4: the environment's enabled acquirer accounts that
 * support the payment's method, lowest costBasisPoints first; a technical failure or timeout falls back to the
 * next account; an issuer decline ends routing (the caller stops walking the list). Pure: no I/O, no clock.
 */

/** The flat projection of a payment that routing looks at (hyperswitch style): nothing else is consulted. */
export interface RoutingPaymentProjection {
  readonly methodType: 'card' | 'debit_card' | 'pix' | 'boleto';
  readonly amount: number;
  readonly currency: string;
  readonly installments: number;
  readonly hasSplits: boolean;
  /** A card's connectorAccountId pins the payment to one account (the card was tokenized there). */
  readonly pinnedConnectorAccountId?: string | null;
}

export interface RoutableAccount {
  readonly id: string;
  readonly connectorSlug: string;
  readonly name?: string;
  readonly enabled: boolean;
  /** Effective capabilities of the account (card, debit_card, pix, boleto, split, ...). */
  readonly capabilities: readonly string[];
  /** null: unknown cost, ranked after every priced account. */
  readonly costBasisPoints: number | null;
  readonly createdAt: string | Date;
}

export type RoutingDecision =
  | { readonly ok: true; readonly accounts: RoutableAccount[] }
  | { readonly ok: false; readonly reason: 'no_account_available' | 'split_not_supported' | 'pinned_account_unavailable'; readonly message: string };

function createdAtMs(a: RoutableAccount): number {
  return a.createdAt instanceof Date ? a.createdAt.getTime() : Date.parse(a.createdAt);
}

/** Returns the ranked fallback list, or why no account can take the payment. */
export function directRouting(payment: RoutingPaymentProjection, accounts: readonly RoutableAccount[]): RoutingDecision {
  let candidates = accounts.filter((a) => a.enabled && a.capabilities.includes(payment.methodType));
  if (payment.pinnedConnectorAccountId) {
    candidates = candidates.filter((a) => a.id === payment.pinnedConnectorAccountId);
    if (candidates.length === 0) {
      return {
        ok: false,
        reason: 'pinned_account_unavailable',
        message: `Connector account ${payment.pinnedConnectorAccountId} is not enabled for ${payment.methodType} in this environment.`,
      };
    }
  }
  if (candidates.length === 0) {
    return { ok: false, reason: 'no_account_available', message: `No enabled connector account supports ${payment.methodType} in this environment.` };
  }
  if (payment.hasSplits) {
    candidates = candidates.filter((a) => a.capabilities.includes('split'));
    if (candidates.length === 0) {
      return { ok: false, reason: 'split_not_supported', message: 'No enabled connector account of this environment can execute a split payment.' };
    }
  }
  const ranked = rankByCost(candidates);
  return { ok: true, accounts: ranked };
}

/** Lowest costBasisPoints first (unknown cost last), then the oldest account, then the id: a stable order. */
export function rankByCost(accounts: readonly RoutableAccount[]): RoutableAccount[] {
  return accounts
    .map((account, index) => ({ account, index }))
    .sort((x, y) => {
      const cx = x.account.costBasisPoints ?? Number.POSITIVE_INFINITY;
      const cy = y.account.costBasisPoints ?? Number.POSITIVE_INFINITY;
      if (cx !== cy) return cx < cy ? -1 : 1;
      const tx = createdAtMs(x.account);
      const ty = createdAtMs(y.account);
      if (tx !== ty) return tx - ty;
      if (x.account.id !== y.account.id) return x.account.id < y.account.id ? -1 : 1;
      return x.index - y.index;
    })
    .map((r) => r.account);
}
