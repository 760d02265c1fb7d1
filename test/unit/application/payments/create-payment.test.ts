import { expect } from 'chai';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { CapturePayment } from '../../../../application/payments/capture-payment';
import { RefundPayment } from '../../../../application/payments/refund-payment';
import { VoidPayment } from '../../../../application/payments/void-payment';
import { DomainError } from '../../../../domain/shared/domain-error';
import { SteppingClock, account, approved, declined, paymentDeps } from '../../../support/payment-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const live = { organizationId: 'org_1', environment: 'live' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };

describe('CreatePayment (direct routing pipeline)', () => {
  it('tries accounts cheapest first and falls back on timeout and technical failure, one attempt each', async () => {
    const { deps, connectors, outbox } = paymentDeps([account('ca_c', 300), account('ca_a', 100), account('ca_b', 200)], new SteppingClock(undefined, 5));
    connectors.script('ca_a', 'timeout').script('ca_b', 'technical').script('ca_c', approved());
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card });
    expect(connectors.calls.map((c) => c.accountId)).to.deep.equal(['ca_a', 'ca_b', 'ca_c']);
    expect(result.status).to.equal('captured');
    expect(result.connectorAccountId).to.equal('ca_c');
    expect(result.attempts.map((a) => [a.connectorAccountId, a.outcome, a.classification])).to.deep.equal([
      ['ca_a', 'timeout', 'TIMEOUT'],
      ['ca_b', 'technical_failure', 'TECHNICAL_FAILURE'],
      ['ca_c', 'approved', 'APPROVED'],
    ]);
    expect(result.attempts.every((a) => a.latencyMs > 0)).to.equal(true);
    expect(outbox.types()).to.deep.equal(['payment.captured']);
  });

  it('never calls a connector inside a transaction, and uses the attempt id as idempotency key', async () => {
    const { deps, connectors } = paymentDeps([account('ca_a', 100), account('ca_b', 200)]);
    connectors.script('ca_a', 'timeout');
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card });
    expect(connectors.calls.every((c) => !c.insideTransaction)).to.equal(true);
    expect(connectors.calls.map((c) => c.input.idempotencyKey)).to.deep.equal(result.attempts.map((a) => a.id));
    expect(new Set(result.attempts.map((a) => a.id)).size).to.equal(2);
  });

  it('an account that cannot be opened gets an attempt saying why routing went past it (nothing sent)', async () => {
    const { deps, connectors } = paymentDeps([account('ca_a', 100), account('ca_b', 200)]);
    connectors.unreadable.add('ca_a');
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card });
    expect(connectors.calls.map((c) => c.accountId)).to.deep.equal(['ca_b']);
    expect(result.status).to.equal('captured');
    expect(result.attempts.map((a) => [a.connectorAccountId, a.outcome])).to.deep.equal([['ca_a', 'technical_failure'], ['ca_b', 'approved']]);
    expect(result.attempts[0]!.message).to.match(/^Not sent: the account could not be opened: credentials sealed/);
    expect(result.attempts[0]!.id).to.match(/^att_/);
  });

  it('an issuer decline ends routing: failed with decline, payment.failed', async () => {
    const { deps, connectors, outbox } = paymentDeps([account('ca_a', 100), account('ca_b', 200)]);
    connectors.script('ca_a', declined('51'));
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card });
    expect(connectors.calls).to.have.length(1);
    expect(result.status).to.equal('failed');
    expect(result.decline).to.include({ reason: 'INSUFFICIENT_FUNDS', reversibility: 'REVERSIBLE', rawCode: '51' });
    expect(outbox.types()).to.deep.equal(['payment.failed']);
  });

  it('every account failing technically fails the payment with connector_unavailable', async () => {
    const { deps, connectors } = paymentDeps([account('ca_a', 100)]);
    connectors.script('ca_a', 'technical');
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card });
    expect(result.status).to.equal('failed');
    expect(result.error).to.include({ code: 'connector_unavailable', stage: 'authorization' });
    expect(result.error!.connectorAccount).to.deep.equal({ id: 'ca_a', name: 'ca_a' });
  });

  it('splits with no split-capable account: failed with split_not_supported, nothing sent', async () => {
    const { deps, connectors, outbox, recipients } = paymentDeps([account('ca_a', 100)]);
    recipients.add(sandbox, 'rcp_1');
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card, splits: [{ recipientId: 'rcp_1', type: 'percentage', value: 5000 }] });
    expect(connectors.calls).to.have.length(0);
    expect(result.status).to.equal('failed');
    expect(result.error!.code).to.equal('split_not_supported');
    expect(outbox.events[0]!.type).to.equal('payment.failed');
    expect((outbox.events[0]!.object as any).error.code).to.equal('split_not_supported');
  });

  it('split amounts: percentage in basis points of the amount; shares above the amount are refused', async () => {
    const { deps, recipients } = paymentDeps([account('ca_a', 100, { capabilities: ['card', 'split'] })]);
    recipients.add(sandbox, 'rcp_1', 'rcp_2');
    const result = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1001, card, splits: [{ recipientId: 'rcp_1', type: 'percentage', value: 5000 }, { recipientId: 'rcp_2', type: 'fixed', value: 100 }] });
    expect(result.splits.map((s) => s.amount)).to.deep.equal([500, 100]);
    await new CreatePayment(deps)
      .execute({ scope: sandbox, amount: 100, card, splits: [{ recipientId: 'rcp_1', type: 'fixed', value: 101 }] })
      .then(() => expect.fail('should refuse'), (e: DomainError) => expect(e.meta.param).to.equal('body.splits'));
  });

  it('split recipients of another environment or nowhere: 422 resource_missing naming the split, nothing saved or sent', async () => {
    const { deps, connectors, outbox, payments, recipients } = paymentDeps([account('ca_a', 100, { capabilities: ['card', 'split'] })]);
    recipients.add(sandbox, 'rcp_1').add(live, 'rcp_live');
    const splits = [
      { recipientId: 'rcp_1', type: 'fixed' as const, value: 100 },
      { recipientId: 'rcp_live', type: 'fixed' as const, value: 100 },
      { recipientId: 'rcp_none', type: 'fixed' as const, value: 100 },
    ];
    const error = await new CreatePayment(deps).execute({ scope: sandbox, amount: 1000, card, splits, splitRemainderRecipientId: 'rcp_1' }).then(
      () => expect.fail('should refuse'),
      (e: DomainError) => e,
    );
    expect(error).to.be.instanceOf(DomainError);
    expect(error.code).to.equal('resource_missing');
    expect(error.meta.param).to.equal('body.splits[1].recipientId');
    expect(error.meta.details!.map((d) => d.param)).to.deep.equal(['body.splits[1].recipientId', 'body.splits[2].recipientId']);
    expect(recipients.lookups).to.deep.equal([['rcp_1', 'rcp_live', 'rcp_none']]);
    expect(payments.rows.size).to.equal(0);
    expect(connectors.calls).to.have.length(0);
    expect(outbox.events).to.have.length(0);
  });

  it('looks split recipients up once per payment, all together, and not at all without splits', async () => {
    const { deps, recipients } = paymentDeps([account('ca_a', 100, { capabilities: ['card', 'split'] })]);
    recipients.add(sandbox, 'rcp_1', 'rcp_2', 'rcp_3');
    const create = new CreatePayment(deps);
    await create.execute({ scope: sandbox, amount: 1000, card });
    expect(recipients.lookups).to.deep.equal([]);
    const splits = ['rcp_1', 'rcp_2', 'rcp_3'].map((recipientId) => ({ recipientId, type: 'percentage' as const, value: 3_333 }));
    const result = await create.execute({ scope: sandbox, amount: 1000, card, splits, splitRemainderRecipientId: 'rcp_3' });
    expect(result.status).to.equal('captured');
    expect(recipients.lookups).to.deep.equal([['rcp_1', 'rcp_2', 'rcp_3']]);
  });

  it('counts live payments (declined too) toward the production allowance, never sandbox ones', async () => {
    const { deps, connectors, usage } = paymentDeps([account('ca_a', 100)]);
    connectors.script('ca_a', approved(), declined('05'), approved());
    const create = new CreatePayment(deps);
    await create.execute({ scope: sandbox, amount: 1000, card });
    const a = await create.execute({ scope: live, amount: 1000, card });
    const b = await create.execute({ scope: live, amount: 1000, card });
    expect(usage.counted).to.deep.equal([a.id, b.id]);
    expect(a.status).to.equal('failed');
  });

  it('manual capture stays authorized; acquirer fraud review holds automatic capture as authorized', async () => {
    const { deps, connectors } = paymentDeps([account('ca_a', 100)]);
    connectors.script('ca_a', approved(), approved(true));
    const create = new CreatePayment(deps);
    expect((await create.execute({ scope: sandbox, amount: 1000, card, captureMethod: 'manual' })).status).to.equal('authorized');
    const held = await create.execute({ scope: sandbox, amount: 1000, card });
    expect(held.status).to.equal('authorized');
    expect(held.fraudReview!.status).to.equal('pending');
    expect(held.attempts[0]!.outcome).to.equal('fraud_review');
  });

  it('refuses an unknown customer or payment method as resource_missing', async () => {
    const { deps } = paymentDeps([account('ca_a', 100)]);
    const create = new CreatePayment(deps);
    await create.execute({ scope: sandbox, amount: 1000, card, customerId: 'cus_x' }).then(
      () => expect.fail('should refuse'),
      (e: DomainError) => expect([e.code, e.meta.param]).to.deep.equal(['resource_missing', 'body.customerId']),
    );
    await create.execute({ scope: sandbox, amount: 1000, paymentMethodId: 'pm_x' }).then(
      () => expect.fail('should refuse'),
      (e: DomainError) => expect([e.code, e.meta.param]).to.deep.equal(['resource_missing', 'body.paymentMethodId']),
    );
  });
});

describe('capture, void and refund pipeline', () => {
  async function authorized() {
    const setup = paymentDeps([account('ca_a', 100)]);
    const created = await new CreatePayment(setup.deps).execute({ scope: sandbox, amount: 10_000, card, captureMethod: 'manual' });
    return { ...setup, id: created.id };
  }

  it('capture calls the authorizing account outside any transaction with the operation id, then records the events', async () => {
    const { deps, connectors, outbox, id } = await authorized();
    const result = await new CapturePayment(deps).execute({ scope: sandbox, paymentId: id, amount: 4_000 });
    expect(result).to.include({ status: 'captured', capturedAmount: 4_000 });
    expect(connectors.operations).to.deep.equal([{ accountId: 'ca_a', kind: 'capture', amount: 4_000, idempotencyKey: connectors.operations[0]!.idempotencyKey }]);
    expect(connectors.operations[0]!.idempotencyKey).to.match(/^op_/);
    expect(outbox.types()).to.deep.equal(['payment.authorized', 'payment.captured']);
  });

  it('a refused rule never reaches the acquirer and leaves no claim behind', async () => {
    const { deps, connectors, payments, id } = await authorized();
    await new CapturePayment(deps).execute({ scope: sandbox, paymentId: id, amount: 10_001 }).then(
      () => expect.fail('should refuse'),
      (e: DomainError) => expect(e.code).to.equal('amount_exceeds_available'),
    );
    expect(connectors.operations).to.have.length(0);
    expect(payments.operations.size).to.equal(0);
  });

  it('a concurrent operation in flight is refused with invalid_state', async () => {
    const { deps, payments, id } = await authorized();
    payments.operations.set(`org_1/sandbox/${id}`, { intent: { operationId: 'op_other', kind: 'capture', amount: 1 }, claimId: 'clm_other', until: Number.MAX_SAFE_INTEGER });
    await new VoidPayment(deps).execute({ scope: sandbox, paymentId: id }).then(
      () => expect.fail('should refuse'),
      (e: DomainError) => expect([e.code, e.meta.reason]).to.deep.equal(['invalid_state', 'operation_in_progress']),
    );
  });

  it('refunds go to the acquirer for the amount asked, then full', async () => {
    const { deps, connectors, outbox, id } = await authorized();
    await new CapturePayment(deps).execute({ scope: sandbox, paymentId: id });
    await new RefundPayment(deps).execute({ scope: sandbox, paymentId: id, amount: 2_500 });
    const full = await new RefundPayment(deps).execute({ scope: sandbox, paymentId: id });
    expect(connectors.operations.filter((o) => o.kind === 'refund').map((o) => o.amount)).to.deep.equal([2_500, 7_500]);
    expect(full).to.include({ refundStatus: 'full', refundedAmount: 10_000, status: 'captured' });
    expect(outbox.types().slice(-2)).to.deep.equal(['payment.partially_refunded', 'payment.refunded']);
  });

  it('an operation that got no answer stays pending: repeating it resumes it under the same id, executed once', async () => {
    const { deps, connectors, outbox, payments, id } = await authorized();
    await new CapturePayment(deps).execute({ scope: sandbox, paymentId: id });
    connectors.scriptOperation('refund', 'timeout');
    await new RefundPayment(deps).execute({ scope: sandbox, paymentId: id, amount: 2_500 }).then(
      () => expect.fail('should report the unknown outcome'),
      (e: DomainError) => expect([e.code, e.meta.outcomeUnknown]).to.deep.equal(['connector_unavailable', true]),
    );
    expect(payments.operations.get(`org_1/sandbox/${id}`)).to.deep.include({ claimId: null });
    // Another operation waits for it (a refund of another amount could be a second refund of the same money).
    for (const other of [() => new RefundPayment(deps).execute({ scope: sandbox, paymentId: id, amount: 3_000 }), () => new RefundPayment(deps).execute({ scope: sandbox, paymentId: id })]) {
      await other().then(
        () => expect.fail('should wait for the pending refund'),
        (e: DomainError) => expect([e.code, e.meta.reason, e.meta.pendingOperation]).to.deep.equal(['invalid_state', 'operation_outcome_unknown', { kind: 'refund', amount: 2_500 }]),
      );
    }
    const settled = await new RefundPayment(deps).execute({ scope: sandbox, paymentId: id, amount: 2_500 });
    expect(settled).to.include({ refundedAmount: 2_500, refundStatus: 'partial' });
    const refundCalls = connectors.operationCalls.filter((c) => c.kind === 'refund');
    expect(refundCalls).to.have.length(2);
    expect(refundCalls[1]!.idempotencyKey).to.equal(refundCalls[0]!.idempotencyKey);
    expect(connectors.operations.filter((o) => o.kind === 'refund')).to.have.length(1);
    expect(outbox.types().filter((t) => t === 'payment.partially_refunded')).to.have.length(1);
    expect(payments.operations.size).to.equal(0);
    // Settled: the next refund is a new operation.
    await new RefundPayment(deps).execute({ scope: sandbox, paymentId: id, amount: 1_000 });
    expect(new Set(connectors.operations.map((o) => o.idempotencyKey)).size).to.equal(connectors.operations.length);
  });

  it('an operation that provably never reached the acquirer is settled at once: the next one is new', async () => {
    const { deps, connectors, payments, id } = await authorized();
    connectors.scriptOperation('capture', 'technical');
    await new CapturePayment(deps).execute({ scope: sandbox, paymentId: id, amount: 4_000 }).then(
      () => expect.fail('should fail'),
      (e: DomainError) => expect([e.code, e.meta.outcomeUnknown]).to.deep.equal(['connector_unavailable', false]),
    );
    expect(payments.operations.size).to.equal(0);
    const captured = await new CapturePayment(deps).execute({ scope: sandbox, paymentId: id, amount: 5_000 });
    expect(captured).to.include({ capturedAmount: 5_000 });
    expect(connectors.operationCalls[1]!.idempotencyKey).to.not.equal(connectors.operationCalls[0]!.idempotencyKey);
  });
});
