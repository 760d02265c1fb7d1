import { expect } from 'chai';
import { newReferences, SandboxLedger, type CardRecord } from '../../../../../infrastructure/connectors/sandbox/sandbox-ledger';

const card = (id: string, idempotencyKey: string): CardRecord => ({
  kind: 'card',
  id,
  merchantId: 'm1',
  idempotencyKey,
  amount: 1_000,
  currency: 'BRL',
  status: 'authorized',
  capturedAmount: 0,
  refundedAmount: 0,
  fraudReview: 'none',
  references: newReferences(),
});

/** The sandbox's memory is bounded: the oldest authorizations and answers are forgotten past its capacity. */
describe('sandbox ledger', () => {
  it('finds authorizations by id and by idempotency key, per merchant', () => {
    const ledger = new SandboxLedger();
    ledger.addCard(card('sbx_1', 'att_1'));
    expect(ledger.card('m1', 'sbx_1')?.idempotencyKey).to.equal('att_1');
    expect(ledger.cardByKey('m1', 'att_1')?.id).to.equal('sbx_1');
    expect(ledger.card('m2', 'sbx_1')).to.equal(undefined);
    expect(ledger.cardByKey('m2', 'att_1')).to.equal(undefined);
  });

  it('past its capacity forgets the oldest authorization, by id and by key, and keeps the rest', () => {
    const ledger = new SandboxLedger({ capacity: 2 });
    for (const n of [1, 2, 3]) ledger.addCard(card(`sbx_${n}`, `att_${n}`));
    expect(ledger.card('m1', 'sbx_1')).to.equal(undefined);
    expect(ledger.cardByKey('m1', 'att_1')).to.equal(undefined);
    expect(ledger.capture('m1', 'sbx_1', 0)).to.include({ rawCode: 'payment_not_found' });
    expect(ledger.cardByKey('m1', 'att_2')?.id).to.equal('sbx_2');
    expect(ledger.capture('m1', 'sbx_3', 0)).to.include({ amount: 1_000 });
  });

  it('answers a repeated idempotency key once, until the key is among the forgotten', async () => {
    const ledger = new SandboxLedger({ capacity: 2 });
    let computed = 0;
    const answer = (key: string) => ledger.once('Capture', 'm1', key, () => ++computed);
    expect(await answer('k1')).to.equal(1);
    expect(await answer('k1')).to.equal(1);
    await answer('k2');
    await answer('k3');
    expect(await answer('k3')).to.equal(3);
    expect(await answer('k1'), 'k1 was forgotten: computed again').to.equal(4);
  });
});
