import { expect } from 'chai';
import { CreatePayment } from '../../../../application/payments/create-payment';
import { NotifyExpiringAuthorizations } from '../../../../application/payments/notify-expiring-authorizations';
import { SteppingClock, account, paymentDeps } from '../../../support/payment-fakes';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const DAY = 24 * 60 * 60 * 1000;

describe('NotifyExpiringAuthorizations', () => {
  for (const [configured, expectedOperation, expectedTypes] of [
    [undefined, null, ['payment.authorized', 'payment.authorization_expiring']],
    ['capture', 'capture', ['payment.authorized', 'payment.authorization_expiring', 'payment.captured']],
    ['void', 'void', ['payment.authorized', 'payment.authorization_expiring', 'payment.voided']],
  ] as const) {
    it(`notices once and carries out the account's action (${configured ?? 'default notify'})`, async () => {
      const clock = new SteppingClock(new Date('2026-03-01T12:00:00.000Z'));
      const { deps, connectors, outbox } = paymentDeps([account('ca_a', 100, configured ? { config: { preAuthorizationExpiryAction: configured } } : {})], clock);
      const created = await new CreatePayment(deps).execute({ scope, amount: 5_000, card: { token: 'tok_x_12345', brand: 'elo' }, captureMethod: 'manual' });
      const job = new NotifyExpiringAuthorizations(deps);
      clock.current = new Date(clock.current.getTime() + 13 * DAY);
      expect(await job.run()).to.equal(0);
      clock.current = new Date(clock.current.getTime() + 1 * DAY + 60_000);
      expect(await job.run()).to.equal(1);
      expect(await job.run()).to.equal(0);
      expect(outbox.types()).to.deep.equal(expectedTypes);
      const notice = outbox.events.find((e) => e.type === 'payment.authorization_expiring')!;
      expect(notice.object).to.include({ id: created.id, status: 'authorized', expiryAction: configured ?? 'notify' });
      expect(connectors.operations.map((o) => o.kind)).to.deep.equal(expectedOperation ? [expectedOperation] : []);
    });
  }

  it('a capture action that failed is tried again at the next scans until it happens, and never after the deadline', async () => {
    const clock = new SteppingClock(new Date('2026-03-01T12:00:00.000Z'));
    const { deps, connectors, outbox } = paymentDeps([account('ca_a', 100, { config: { preAuthorizationExpiryAction: 'capture' } })], clock);
    const created = await new CreatePayment(deps).execute({ scope, amount: 5_000, card: { token: 'tok_x_12345', brand: 'elo' }, captureMethod: 'manual' });
    const job = new NotifyExpiringAuthorizations(deps);
    connectors.scriptOperation('capture', 'technical', 'technical');
    clock.current = new Date(Date.parse(created.authorizationExpiresAt!) - DAY + 60_000);
    expect(await job.run()).to.equal(1);
    expect(await job.run()).to.equal(0);
    expect(outbox.types()).to.deep.equal(['payment.authorized', 'payment.authorization_expiring']);
    expect(await job.run()).to.equal(0);
    expect(outbox.types()).to.deep.equal(['payment.authorized', 'payment.authorization_expiring', 'payment.captured']);
    expect(connectors.operationCalls.filter((c) => c.kind === 'capture')).to.have.length(3);
    expect(connectors.operations.filter((o) => o.kind === 'capture')).to.have.length(1);

    const late = await new CreatePayment(deps).execute({ scope, amount: 4_000, card: { token: 'tok_x_12345', brand: 'elo' }, captureMethod: 'manual' });
    connectors.scriptOperation('capture', 'technical');
    clock.current = new Date(Date.parse(late.authorizationExpiresAt!) - DAY + 60_000);
    expect(await job.run()).to.equal(1);
    clock.current = new Date(Date.parse(late.authorizationExpiresAt!) + 1);
    const calls = connectors.operationCalls.length;
    await job.run();
    expect(connectors.operationCalls, 'nothing after the deadline').to.have.length(calls);
  });
});
