import { expect } from 'chai';
import { AuthorizationRun, runContext, type AttemptIntents, type DriveInput } from '../../../../application/payments/authorization-run';
import { authorizeRequest } from '../../../../application/payments/authorize-request';
import { directRoutingGraph } from '../../../../domain/flow-run/direct-graph';
import { newFlowRun } from '../../../../domain/flow-run/flow-run';
import { stepFlowRun } from '../../../../domain/flow-run/flow-step';
import type { PaymentConnectorAccount } from '../../../../domain/ports/payment-connectors';
import { processingPayment } from '../../../support/builders/payment.builder';
import { account, approved, declined, paymentDeps, SteppingClock, type ScriptedAnswer } from '../../../support/payment-fakes';

const sandbox = { organizationId: 'org_1', environment: 'sandbox' as const };
const card = { brand: 'visa', bin: '411111', last4: '1111', expMonth: 12, expYear: 2030, holderName: 'ANA SILVA' };

/**
 * Attempt ids as a holder hands them out, recording each beforeCall with how many Authorize calls had gone out by
 * then; `loseLeaseAt` makes the nth beforeCall (1-based) find the lease taken over.
 */
class RecordingIntents implements AttemptIntents {
  readonly saved: Array<{ accountId: string; attemptId: string; callsBefore: number }> = [];
  private n = 0;
  constructor(private readonly callsSoFar: () => number, private readonly loseLeaseAt: number | null = null) {}
  idFor(accountId: string): string {
    return `att_${accountId}_${++this.n}`;
  }
  async beforeCall(accountId: string, attemptId: string): Promise<boolean> {
    if (this.saved.length + 1 === this.loseLeaseAt) return false;
    this.saved.push({ accountId, attemptId, callsBefore: this.callsSoFar() });
    return true;
  }
}

/** Direct routing over ca_a (cheapest), ca_b, ca_c, each account answering as scripted. */
function runOver(scripts: Record<string, ScriptedAnswer[]>, options: { loseLeaseAt?: number; accounts?: PaymentConnectorAccount[] } = {}) {
  const accounts = options.accounts ?? [account('ca_a', 100), account('ca_b', 200), account('ca_c', 300)];
  const setup = paymentDeps(accounts, new SteppingClock(new Date('2026-03-01T12:00:00.000Z'), 10));
  for (const [id, answers] of Object.entries(scripts)) setup.connectors.script(id, ...answers);
  const payment = processingPayment();
  const context = runContext(payment, directRoutingGraph({ methodType: 'card' }, accounts), accounts, () => 0);
  const intents = new RecordingIntents(() => setup.connectors.calls.length, options.loseLeaseAt ?? null);
  const from = stepFlowRun({ ...context, now: new Date('2026-03-01T12:00:00.000Z'), newAttemptId: (id) => intents.idFor(id) }, newFlowRun(null), { kind: 'start' });
  const input: DriveInput = { scope: sandbox, request: authorizeRequest(payment.view(), { token: 'tok_sandbox_any', isNetworkToken: false, card }), card, context, from, intents };
  return { ...setup, intents, drive: () => new AuthorizationRun(setup.deps).drive(input) };
}

describe('AuthorizationRun (the executor of a flow run: one Authorize per step, fed back to the step function)', () => {
  it('approved on the first account: ends approved, one attempt, the decision carries the account and the answer', async () => {
    const { drive, connectors } = runOver({});
    const driven = await drive();
    expect(driven.step.action).to.deep.include({ kind: 'end' });
    expect(driven.step.action.kind === 'end' && driven.step.action.outcome.result).to.equal('approved');
    expect(driven.attempts.map((a) => [a.connectorAccountId, a.outcome, a.classification])).to.deep.equal([['ca_a', 'approved', 'APPROVED']]);
    expect(driven.decision?.kind).to.equal('approved');
    expect(driven.decision?.account.id).to.equal('ca_a');
    expect([driven.handedOver, driven.lastFailure]).to.deep.equal([false, null]);
    expect(connectors.calls.map((c) => c.accountId)).to.deep.equal(['ca_a']);
  });

  it('each call goes out with the attempt id the run chose as idempotency key, saved before the call, outside any transaction', async () => {
    const { drive, connectors, intents } = runOver({ ca_a: ['technical'], ca_b: ['timeout'] });
    const driven = await drive();
    expect(connectors.calls.map((c) => c.input.idempotencyKey)).to.deep.equal(driven.attempts.map((a) => a.id));
    expect(intents.saved.map((s) => [s.accountId, s.attemptId, s.callsBefore])).to.deep.equal(
      driven.attempts.map((a, i) => [a.connectorAccountId, a.id, i]),
    );
    expect(connectors.calls.every((c) => !c.insideTransaction)).to.equal(true);
  });

  it('technical failures and timeouts fall back to the next account until one approves', async () => {
    const { drive } = runOver({ ca_a: ['technical'], ca_b: ['timeout'] });
    const driven = await drive();
    expect(driven.attempts.map((a) => [a.connectorAccountId, a.outcome])).to.deep.equal([['ca_a', 'technical_failure'], ['ca_b', 'timeout'], ['ca_c', 'approved']]);
    expect(driven.step.action.kind === 'end' && driven.step.action.outcome.result).to.equal('approved');
    expect(driven.decision?.account.id).to.equal('ca_c');
    // the failure before the approval is still reported as the last one seen
    expect(driven.lastFailure?.account.id).to.equal('ca_b');
  });

  it('an issuer decline ends the run declined without trying another account, classified by the decline table', async () => {
    const { drive, connectors } = runOver({ ca_a: [declined('51')] });
    const driven = await drive();
    expect(connectors.calls).to.have.length(1);
    expect(driven.step.action.kind === 'end' && driven.step.action.outcome.result).to.equal('declined');
    expect(driven.decision).to.deep.include({ kind: 'declined', rawCode: '51' });
    expect(driven.attempts[0]).to.deep.include({ outcome: 'declined', rawCode: '51', classification: 'INSUFFICIENT_FUNDS' });
  });

  it('every account failing ends the run failed (all_accounts_failed) with the last failure', async () => {
    const { drive } = runOver({ ca_a: ['technical'], ca_b: ['technical'], ca_c: ['timeout'] });
    const driven = await drive();
    expect(driven.step.action.kind === 'end' && [driven.step.action.outcome.result, driven.step.action.outcome.reason]).to.deep.equal(['failed', 'all_accounts_failed']);
    expect(driven.decision).to.equal(null);
    expect(driven.lastFailure).to.deep.equal({ account: { id: 'ca_c', name: 'ca_c' }, message: 'deadline exceeded' });
    expect(driven.attempts.map((a) => a.classification)).to.deep.equal(['TECHNICAL_FAILURE', 'TECHNICAL_FAILURE', 'TIMEOUT']);
  });

  it('an account that cannot be opened is a technical failure not sent (no acquirer call), and the run moves on', async () => {
    const { drive, connectors } = runOver({});
    connectors.unreadable.add('ca_a');
    const driven = await drive();
    expect(connectors.calls.map((c) => c.accountId)).to.deep.equal(['ca_b']);
    expect(driven.attempts[0]).to.deep.include({ connectorAccountId: 'ca_a', outcome: 'technical_failure', connectorSlug: '' });
    expect(driven.attempts[0]!.message).to.match(/^Not sent: the account could not be opened/);
    expect(driven.attempts[0]).not.to.have.property('outcomeUnknown');
    expect(driven.decision?.account.id).to.equal('ca_b');
  });

  it('a demand for authentication (3DS) ends the run with that decision', async () => {
    const pendingAction = { status: 'pending_action', action: { type: 'three_ds' }, rawCode: '3D', message: 'authenticate' } as const;
    const { drive } = runOver({ ca_a: [pendingAction] });
    const driven = await drive();
    expect(driven.decision?.kind).to.equal('authentication_required');
    expect(driven.attempts[0]).to.deep.include({ classification: 'AUTHENTICATION_REQUIRED', outcome: 'declined' });
    expect(driven.step.action.kind).to.equal('end');
  });

  it('an approval held in fraud review is recorded as fraud_review', async () => {
    const { drive } = runOver({ ca_a: [approved(true)] });
    const driven = await drive();
    expect(driven.attempts[0]).to.deep.include({ outcome: 'fraud_review', classification: 'FRAUD_REVIEW' });
    expect(driven.decision?.kind).to.equal('approved');
  });

  it('when the lease is lost before a call, it stops: handed over, that call never sent, nothing more decided', async () => {
    const { drive, connectors } = runOver({ ca_a: ['technical'] }, { loseLeaseAt: 2 });
    const driven = await drive();
    expect(driven.handedOver).to.equal(true);
    expect(connectors.calls.map((c) => c.accountId)).to.deep.equal(['ca_a']);
    expect(driven.attempts.map((a) => a.connectorAccountId)).to.deep.equal(['ca_a']);
    expect(driven.step.action.kind).to.equal('call_acquirer');
  });

  it('a lease lost before the very first call sends nothing', async () => {
    const { drive, connectors } = runOver({}, { loseLeaseAt: 1 });
    const driven = await drive();
    expect([driven.handedOver, driven.attempts.length, connectors.calls.length]).to.deep.equal([true, 0, 0]);
  });
});
