import chai, { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { SecurityGuard } from '../../../../application/security/security-guard';
import { SecurityIncidents } from '../../../../application/security/security-incidents';
import { pseudonymize } from '../../../../domain/security/card-testing';
import { fakeIdentity } from '../../../support/identity-fakes';

chai.use(chaiAsPromised);

function guardWorld() {
  const world = fakeIdentity();
  const s = () => world.store.state;
  const incidents = {
    insert: async (_tx: unknown, i: any) => void s().incidents.set(i.id, i),
    update: async (_tx: unknown, i: any) => void s().incidents.set(i.id, i),
    findById: async (_tx: unknown, org: string, env: string, id: string) => {
      const i = s().incidents.get(id);
      return i && i.organizationId === org && i.environment === env ? i : null;
    },
    list: async (_tx: unknown, org: string, env: string) => [...s().incidents.values()].filter((i) => i.organizationId === org && i.environment === env),
    findBlocking: async (_tx: unknown, org: string, env: string, hashes: readonly string[]) =>
      [...s().incidents.values()].filter((i) => i.organizationId === org && i.environment === env && i.blocked && hashes.includes(i.signal.valueHash)),
  };
  const guard = new SecurityGuard({
    transactor: world.store,
    attempts: {
      lockScope: async () => undefined,
      insert: async (_tx, a) => void s().attempts.push(a),
      listRecent: async (_tx, org, env, signals, since) =>
        s().attempts.filter((a) => a.organizationId === org && a.environment === env && a.at > since &&
          ((signals.clientIpHash && a.clientIpHash === signals.clientIpHash) || (signals.deviceIdHash && a.deviceIdHash === signals.deviceIdHash))),
    },
    incidents,
    memberships: world.deps.memberships,
    mailer: world.mailer,
    ids: world.deps.ids,
    clock: world.clock,
    pseudonymizationKey: 'k',
  });
  return { ...world, guard, actions: new SecurityIncidents(world.store, incidents, guard, world.clock) };
}

describe('SecurityGuard (card testing, in-memory ports)', () => {
  const ctx = { organizationId: 'org_1', environment: 'live' as const, clientIp: '198.51.100.1' };

  it('opens one incident at the threshold, blocks, and does not open duplicates while blocked', async () => {
    const world = guardWorld();
    for (let i = 0; i < 12; i++) {
      await world.guard.recordCardOutcome({ ...ctx, declined: true, cardFingerprint: 'tok_1' });
      world.clock.advance(1000);
    }
    expect(world.store.state.incidents.size).to.equal(1);
    await expect(world.guard.checkCardPayment(ctx)).to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');
    expect(world.store.state.attempts.every((a) => a.clientIpHash !== '198.51.100.1')).to.equal(true);
  });

  it('after an unblock, a new burst opens a new incident', async () => {
    const world = guardWorld();
    for (let i = 0; i < 10; i++) await world.guard.recordCardOutcome({ ...ctx, declined: true });
    const [first] = world.store.state.incidents.values();
    await world.actions.act({ organizationId: 'org_1', environment: 'live', incidentId: first!.id, action: 'unblock', reason: 'Verified with the merchant', actorUserId: 'usr_1' });
    await world.guard.checkCardPayment(ctx);
    world.clock.advance(11 * 60_000);
    for (let i = 0; i < 10; i++) await world.guard.recordCardOutcome({ ...ctx, declined: true });
    expect(world.store.state.incidents.size).to.equal(2);
  });

  it('a failed alert e-mail is recorded; retry_email sends it again and records it as sent', async () => {
    const world = guardWorld();
    world.store.state.users.set('usr_1', { id: 'usr_1', email: 'admin@example.com' } as never);
    world.store.state.memberships.push({ userId: 'usr_1', organizationId: 'org_1', role: 'administrator', createdAt: new Date() });
    let failing = true;
    const original = world.mailer.send.bind(world.mailer);
    world.mailer.send = async (message) => {
      if (failing) throw new Error('SMTP down');
      return original(message);
    };
    const [opened] = await (async () => {
      let result: Awaited<ReturnType<typeof world.guard.recordWithin>> = [];
      for (let i = 0; i < 10; i++) result = result.concat(await world.guard.recordCardOutcome({ ...ctx, declined: true }));
      return result;
    })();
    await world.guard.sendAlert(world.store.state.incidents.get(opened!.id)!);
    expect(world.store.state.incidents.get(opened!.id)!.emailStatus).to.equal('failed');
    failing = false;
    const retried = await world.actions.act({ organizationId: 'org_1', environment: 'live', incidentId: opened!.id, action: 'retry_email', reason: 'SMTP is back, send it again', actorUserId: 'usr_1' });
    expect(retried.emailStatus).to.equal('sent');
    expect(world.mailer.sent.map((m) => m.to)).to.deep.equal(['admin@example.com']);
  });

  it('one address in any spelling is one signal: attempts add up and the block holds for every spelling', async () => {
    const world = guardWorld();
    const spellings = ['2001:db8::5', '2001:0db8::5', '2001:db8:0:0::5', '2001:DB8:0:0:0:0:0:5'];
    for (let i = 0; i < 10; i++) {
      await world.guard.recordCardOutcome({ ...ctx, clientIp: spellings[i % 4], declined: true });
      world.clock.advance(1000);
    }
    expect(world.store.state.incidents.size, 'ten declines of one address cross the threshold once').to.equal(1);
    for (const clientIp of spellings) {
      await expect(world.guard.checkCardPayment({ ...ctx, clientIp }), clientIp).to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');
    }
    await world.guard.checkCardPayment({ ...ctx, clientIp: '2001:db8::6' });

    const mapped = guardWorld();
    for (let i = 0; i < 10; i++) await mapped.guard.recordCardOutcome({ ...ctx, clientIp: '203.0.113.77', declined: true });
    for (const clientIp of ['203.0.113.77', '::ffff:203.0.113.77', '::FFFF:CB00:714D']) {
      await expect(mapped.guard.checkCardPayment({ ...ctx, clientIp }), clientIp).to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');
    }
  });

  it('an incident opened on a non-canonical spelling (before canonical forms) still blocks that address', async () => {
    const world = guardWorld();
    for (let i = 0; i < 10; i++) await world.guard.recordCardOutcome({ ...ctx, clientIp: '198.51.100.9', declined: true });
    const [incident] = world.store.state.incidents.values();
    // What the text-comparing version stored for a payer sent as `::ffff:198.51.100.9`: the hash of that text.
    const formerHash = pseudonymize('client_ip', '::ffff:198.51.100.9', 'k');
    world.store.state.incidents.set(incident!.id, { ...incident!, signal: { ...incident!.signal, valueHash: formerHash } });
    await expect(world.guard.checkCardPayment({ ...ctx, clientIp: '198.51.100.9' })).to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');
    await expect(world.guard.checkCardPayment({ ...ctx, clientIp: '::ffff:c633:6409' })).to.be.rejected.and.eventually.have.property('code', 'blocked_by_security_policy');
  });

  it('ignores attempts without an address or device', async () => {
    const world = guardWorld();
    for (let i = 0; i < 20; i++) await world.guard.recordCardOutcome({ organizationId: 'org_1', environment: 'live', declined: true });
    expect(world.store.state.attempts).to.have.length(0);
    await world.guard.checkCardPayment({ organizationId: 'org_1', environment: 'live' });
  });
});
