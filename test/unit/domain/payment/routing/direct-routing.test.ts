import { expect } from 'chai';
import { RoutableAccount, RoutingPaymentProjection, directRouting } from '../../../../../domain/payment/routing/direct-routing';

function account(id: string, overrides: Partial<RoutableAccount> = {}): RoutableAccount {
  return { id, connectorSlug: 'sandbox', enabled: true, capabilities: ['card', 'pix'], costBasisPoints: 100, createdAt: '2026-01-01T00:00:00.000Z', ...overrides };
}

const card: RoutingPaymentProjection = { methodType: 'card', amount: 1000, currency: 'BRL', installments: 1, hasSplits: false };

describe('direct routing', () => {
  const cases: Array<{ name: string; payment?: Partial<RoutingPaymentProjection>; accounts: RoutableAccount[]; expected: string[] | string }> = [
    { name: 'lowest costBasisPoints first', accounts: [account('ca_a', { costBasisPoints: 250 }), account('ca_b', { costBasisPoints: 90 }), account('ca_c', { costBasisPoints: 120 })], expected: ['ca_b', 'ca_c', 'ca_a'] },
    {
      name: 'ties broken by creation time, oldest first',
      accounts: [
        account('ca_new', { createdAt: '2026-02-01T00:00:00.000Z' }),
        account('ca_old', { createdAt: '2025-12-01T00:00:00.000Z' }),
        account('ca_mid', { createdAt: new Date('2026-01-15T00:00:00.000Z') }),
      ],
      expected: ['ca_old', 'ca_mid', 'ca_new'],
    },
    { name: 'unknown cost goes last', accounts: [account('ca_null', { costBasisPoints: null }), account('ca_0', { costBasisPoints: 0 })], expected: ['ca_0', 'ca_null'] },
    { name: 'disabled accounts are skipped', accounts: [account('ca_off', { enabled: false, costBasisPoints: 1 }), account('ca_on')], expected: ['ca_on'] },
    { name: 'accounts without the method are skipped', accounts: [account('ca_pix', { capabilities: ['pix'] }), account('ca_card', { capabilities: ['card'], costBasisPoints: 500 })], expected: ['ca_card'] },
    { name: 'no account -> no_account_available', accounts: [account('ca_pix', { capabilities: ['pix'] })], expected: 'no_account_available' },
    { name: 'empty environment -> no_account_available', accounts: [], expected: 'no_account_available' },
    {
      name: 'splits keep only accounts with the split capability',
      payment: { hasSplits: true },
      accounts: [account('ca_cheap', { costBasisPoints: 10 }), account('ca_split', { capabilities: ['card', 'split'], costBasisPoints: 300 })],
      expected: ['ca_split'],
    },
    { name: 'splits and no split account -> split_not_supported', payment: { hasSplits: true }, accounts: [account('ca_1'), account('ca_2')], expected: 'split_not_supported' },
    { name: 'a disabled split account does not count', payment: { hasSplits: true }, accounts: [account('ca_1', { capabilities: ['card', 'split'], enabled: false })], expected: 'no_account_available' },
    { name: 'pinned account only', payment: { pinnedConnectorAccountId: 'ca_2' }, accounts: [account('ca_1', { costBasisPoints: 1 }), account('ca_2')], expected: ['ca_2'] },
    { name: 'pinned account disabled -> pinned_account_unavailable', payment: { pinnedConnectorAccountId: 'ca_2' }, accounts: [account('ca_1'), account('ca_2', { enabled: false })], expected: 'pinned_account_unavailable' },
    { name: 'debit_card needs the debit_card capability', payment: { methodType: 'debit_card' }, accounts: [account('ca_1'), account('ca_d', { capabilities: ['debit_card'] })], expected: ['ca_d'] },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const decision = directRouting({ ...card, ...c.payment }, c.accounts);
      if (typeof c.expected === 'string') {
        expect(decision.ok).to.equal(false);
        if (!decision.ok) {
          expect(decision.reason).to.equal(c.expected);
          expect(decision.message).to.be.a('string').and.not.empty;
        }
      } else {
        expect(decision.ok).to.equal(true);
        if (decision.ok) expect(decision.accounts.map((a) => a.id)).to.deep.equal(c.expected);
      }
    });
  }

  it('is deterministic: equal cost and creation fall back to id order', () => {
    const same = { costBasisPoints: 100, createdAt: '2026-01-01T00:00:00.000Z' };
    const decision = directRouting(card, [account('ca_b', same), account('ca_a', same)]);
    expect(decision.ok && decision.accounts.map((a) => a.id)).to.deep.equal(['ca_a', 'ca_b']);
  });

  it('does not mutate its input', () => {
    const accounts = [account('ca_x', { costBasisPoints: 300 }), account('ca_y', { costBasisPoints: 100 })];
    directRouting(card, accounts);
    expect(accounts.map((a) => a.id)).to.deep.equal(['ca_x', 'ca_y']);
  });
});
