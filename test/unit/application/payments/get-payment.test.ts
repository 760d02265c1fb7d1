import { expect } from 'chai';
import { CapturePayment } from '../../../../application/payments/capture-payment';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { GetPayment } from '../../../../application/payments/get-payment';
import type { TenantScope } from '../../../../domain/shared/environment';
import { account, paymentDeps, SteppingClock } from '../../../support/payment-fakes';
import { refusal } from '../../../support/refusal';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const live = { organizationId: 'org_1', environment: 'live' as const };
const card = { token: 'tok_sandbox_any', brand: 'visa', last4: '1111' };

async function created(captureMethod: 'automatic' | 'manual', scripts: Parameters<ReturnType<typeof paymentDeps>['connectors']['script']>[] = []) {
  const setup = paymentDeps([account('ca_a', 100), account('ca_b', 200)], new SteppingClock(new Date('2026-03-01T12:00:00.000Z'), 1_000));
  for (const script of scripts) setup.connectors.script(...script);
  const payment = await new CreatePayment(setup.deps).execute({ scope: sandbox, amount: 10_000, card, captureMethod });
  return { ...setup, payment, get: (scope: TenantScope = sandbox) => new GetPayment(setup.deps).execute({ scope, paymentId: payment.id }) };
}

describe('GetPayment (the full payment view)', () => {
  it('a payment of another environment, or none, is not_found', async () => {
    const { get, deps } = await created('automatic');
    expect(await refusal(get(live))).to.deep.equal({ code: 'not_found', param: null });
    expect(await refusal(new GetPayment(deps).execute({ scope: sandbox, paymentId: 'pay_nowhere' }))).to.deep.equal({ code: 'not_found', param: null });
  });

  it('shows how routing went: direct, a fallback after a technical failure, the run with its calls', async () => {
    const { get } = await created('automatic', [['ca_a', 'technical']]);
    const view = await get();
    expect(view.routing).to.deep.equal({ strategy: 'direct', stopReason: 'approved', hasFallback: true, attemptCount: 2 });
    expect(view.flowExecution!.steps.map((s) => [s.nodeId, s.port])).to.deep.equal([['direct-trigger', 'next'], ['direct-route', 'approved'], ['direct-approve', null]]);
    expect(view.flowExecution).to.deep.include({ flowId: null, name: 'Direct routing', version: null, status: 'ended' });
    const calls = view.flowExecution!.steps.flatMap((s) => ('calls' in s ? s.calls : []) ?? []);
    expect(calls.map((c) => [c.connectorAccountId, c.result])).to.deep.equal([['ca_a', 'technical_failure'], ['ca_b', 'approved']]);
    expect(view.flowExecution!.steps.every((s) => s.durationMs >= 0)).to.equal(true);
    expect([view.disputes, view.pendingOperation]).to.deep.equal([[], null]);
  });

  it('carries the timeline the read side keeps for the payment', async () => {
    const { get, queries, payment } = await created('automatic');
    queries.timelines.set(payment.id, [{ id: 'evt_1', type: 'payment.captured', createdAt: '2026-03-01T12:00:01.000Z', previousAttributes: null }]);
    expect((await get()).timeline.map((e) => e.type)).to.deep.equal(['payment.captured']);
    expect(queries.timelineRequests).to.deep.equal([{ paymentId: payment.id, relatedObjectIds: [] }]);
  });

  it('an authorized payment offers its money actions; captured, it lists the capture as an operation', async () => {
    const { get, deps, payment } = await created('manual');
    expect((await get()).allowedActions).to.include.members(['capture', 'void']);
    await new CapturePayment(deps).execute({ scope: sandbox, paymentId: payment.id, amount: 4_000 });
    const view = await get();
    expect(view.operations.map((o) => [o.type, o.amount, o.status])).to.deep.equal([['capture', 4_000, 'succeeded']]);
    expect(view.refunds).to.deep.equal([]);
  });

  it('an operation whose answer was lost is shown pending, with its automatic retry, and is the only action accepted', async () => {
    const { get, deps, connectors, payment } = await created('manual');
    connectors.scriptOperation('capture', 'timeout');
    await new CapturePayment(deps).execute({ scope: sandbox, paymentId: payment.id, amount: 4_000 }).catch(() => undefined);
    const view = await get();
    expect(view.pendingOperation).to.deep.include({ kind: 'capture', amount: 4_000, inFlight: false });
    expect(view.pendingOperation!.automaticRetryAt).to.be.a('string');
    expect(view.allowedActions).to.deep.equal(['capture']);
  });
});
