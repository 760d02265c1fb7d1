import { expect } from 'chai';
import { execFile } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { ApiClient, type ApiResult } from '../../support/api-client';
import { eventually } from '../../support/eventually';
import { SmtpSink } from '../../support/smtp-sink';
import { startTestService, type TestService } from '../../support/test-service';
import { registerAndEnroll, totp } from './identity-support';

/**
 * Issue 22 items 5 and 7 through the REST edge: guessing is throttled per (account, address) without a stranger
 * locking the owner out, and behind a trusted proxy (TRUSTED_PROXIES) every client has its own address.
 * The test plays the proxy from 127.0.0.2 (trusted) and an untrusted peer from 127.0.0.1.
 */
describe('dashboard sign-in throttling and the client address (REST, PostgreSQL, SMTP sink)', () => {
  const PROXY = '127.0.0.2';
  let service: TestService;
  let api: ApiClient;
  let sink: SmtpSink;
  const clock = new ManualClock(new Date(Math.ceil(Date.now() / 30_000) * 30_000 + 1_000));

  before(async () => {
    sink = new SmtpSink();
    const smtpUrl = await sink.start();
    service = await startTestService({
      clock,
      transport: 'in-process',
      config: { smtpUrl, authEmailEnabled: true },
      env: {
        TRUSTED_PROXIES: `${PROXY}/32`,
        // The helpers register from 127.0.0.1; the override of the reset check (default 100) is under test.
        RATE_LIMITS: 'auth.register.address=1000/15m,auth.mfa.setup.address=1000/15m,auth.mfa.verify.address=1000/15m,auth.password_reset_check.address=3/15m',
      },
    });
    api = new ApiClient(service.url);
  });

  after(async () => {
    await service?.stop();
    await sink?.stop();
  });

  /** A POST as the client `client` behind the trusted proxy, or from `peer` with whatever X-Forwarded-For. */
  function post(route: string, body: unknown, from: { client?: string; peer?: string; forwardedFor?: string }): Promise<ApiResult> {
    const payload = JSON.stringify(body);
    const forwardedFor = from.forwardedFor ?? from.client;
    return new Promise((resolve, reject) => {
      const request = http.request(
        `${service.url}${route}`,
        {
          method: 'POST',
          localAddress: from.peer ?? PROXY,
          headers: { 'Content-Type': 'application/json', ...(forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {}) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const headers = new Headers(Object.entries(response.headers).map(([name, value]) => [name, String(value)] as [string, string]));
            resolve({ status: response.statusCode!, headers, body: text ? JSON.parse(text) : undefined, text });
          });
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  const login = (email: string, password: string, client: string) => post('/v1/auth/login', { email, password }, { client });

  function expectRateLimited(response: ApiResult): void {
    expect(response.status, response.text).to.equal(429);
    expect(response.body.error).to.include({ code: 'rate_limited' });
    expect(response.body.error.requestId).to.match(/^req_/);
    expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
  }

  describe('wrong passwords', () => {
    it("a stranger's wrong passwords from many addresses never refuse the owner's right password from a clean address", async () => {
      const owner = await registerAndEnroll(api, clock);
      for (let i = 1; i <= 12; i++) {
        const guess = await login(owner.email, `guess number ${i}`, `198.51.100.${i}`);
        expect(guess.status, `guess ${i}: ${guess.text}`).to.equal(401);
      }
      const signedIn = await login(owner.email, owner.password, '203.0.113.10');
      expect(signedIn.status, signedIn.text).to.equal(201);
      const verified = await post('/v1/auth/mfa/verify', { challengeToken: signedIn.body.challengeToken, mfaCode: totp(owner.secret, clock.now()) }, { client: '203.0.113.10' });
      expect(verified.status, verified.text).to.equal(201);
      clock.advance(30_000);
    });

    it('the guesser is throttled: five failures per address, and once the account is under attack one per address', async () => {
      const owner = await registerAndEnroll(api, clock);
      for (let i = 0; i < 5; i++) expect((await login(owner.email, `wrong ${i}`, '198.51.100.50')).status).to.equal(401);
      const sixth = await login(owner.email, 'wrong 5', '198.51.100.50');
      expectRateLimited(sixth);
      // Refused before the password is checked: the right password from that address is refused too.
      expectRateLimited(await login(owner.email, owner.password, '198.51.100.50'));
      // The account's cap (10 failures) is passed from other addresses; from then on an address that has failed
      // is refused at once, and a clean one still has its try.
      for (let i = 51; i <= 56; i++) expect((await login(owner.email, 'wrong again', `198.51.100.${i}`)).status).to.equal(401);
      expectRateLimited(await login(owner.email, 'wrong again', '198.51.100.51'));
      expect((await login(owner.email, 'wrong once', '198.51.100.57')).status).to.equal(401);
      expectRateLimited(await login(owner.email, 'wrong twice', '198.51.100.57'));
      // The limits are per account: another account from the same address is not affected.
      const other = await registerAndEnroll(api, clock);
      expect((await login(other.email, other.password, '198.51.100.50')).status).to.equal(201);
      expect((await login(owner.email, owner.password, '203.0.113.11')).status).to.equal(201);
    });

    it("a stranger's wrong codes never refuse the owner's code from a clean address; the guessing address is throttled", async () => {
      const owner = await registerAndEnroll(api, clock);
      const wrong = totp(owner.secret, new Date(clock.now().getTime() + 900_000));
      // Ten wrong codes (the account's cap) from three addresses, four at most per challenge (five lock it).
      for (const [client, count] of [['198.51.100.80', 4], ['198.51.100.81', 4], ['198.51.100.82', 2]] as const) {
        const challenge = await login(owner.email, owner.password, client);
        for (let i = 0; i < count; i++) {
          const failed = await post('/v1/auth/mfa/verify', { challengeToken: challenge.body.challengeToken, mfaCode: wrong }, { client });
          expect(failed.status, failed.text).to.equal(401);
        }
      }
      const again = await login(owner.email, owner.password, '198.51.100.82');
      expectRateLimited(await post('/v1/auth/mfa/verify', { challengeToken: again.body.challengeToken, mfaCode: wrong }, { client: '198.51.100.82' }));
      const challenge = await login(owner.email, owner.password, '203.0.113.12');
      const verified = await post('/v1/auth/mfa/verify', { challengeToken: challenge.body.challengeToken, mfaCode: totp(owner.secret, clock.now()) }, { client: '203.0.113.12' });
      expect(verified.status, verified.text).to.equal(201);
      clock.advance(30_000);
    });
  });

  describe('forgot-password', () => {
    it("a stranger's requests do not block the owner's reset, and the answer never tells whether the e-mail exists", async () => {
      const owner = await registerAndEnroll(api, clock);
      const forgot = (email: string, client: string) => post('/v1/auth/forgot-password', { email }, { client });
      const mailsTo = (email: string) => sink.messages.filter((m) => m.to.includes(email) && /reset your password/i.test(m.subject));
      for (let i = 0; i < 5; i++) expect((await forgot(owner.email, '198.51.100.90')).status).to.equal(201);
      expectRateLimited(await forgot(owner.email, '198.51.100.90'));
      for (let i = 91; i <= 95; i++) expect((await forgot(owner.email, `198.51.100.${i}`)).body).to.deep.equal({ accepted: true });

      const owners = await forgot(owner.email, '203.0.113.20');
      const ghosts = await forgot(`ghost-${Date.now()}@example.com`, '203.0.113.20');
      expect(owners.status).to.equal(201);
      expect(owners.body).to.deep.equal(ghosts.body);

      // Five e-mails are sent, then nothing (a control e-mail sent afterwards arrives alone); no link was voided
      // past the cap, so the newest link in the owner's inbox resets the password.
      const control = await registerAndEnroll(api, clock);
      await forgot(control.email, '203.0.113.21');
      await eventually(() => mailsTo(control.email).length === 1 && mailsTo(owner.email).length >= 5, 15_000);
      const mails = mailsTo(owner.email);
      expect(mails).to.have.length(5);
      const tokens = mails.map((mail) => /Reset token: (\S+)/.exec(mail.text)![1]!);
      const outcomes = [];
      for (const resetToken of tokens) outcomes.push((await post('/v1/auth/reset-password', { resetToken, newPassword: 'the owner chose this one' }, { client: '203.0.113.20' })).status);
      expect(outcomes.filter((status) => status === 201), outcomes.join(',')).to.have.length(1);
      expect((await login(owner.email, 'the owner chose this one', '203.0.113.20')).status).to.equal(201);
    });
  });

  describe('client address (TRUSTED_PROXIES) and RATE_LIMITS', () => {
    const check = (from: { client?: string; peer?: string; forwardedFor?: string }) =>
      post('/v1/auth/password-reset/check', { resetToken: 'x'.repeat(40) }, from);

    it('two clients behind the trusted proxy have separate buckets, sized by the RATE_LIMITS override', async () => {
      for (let i = 0; i < 3; i++) expect((await check({ client: '198.51.100.200' })).status).to.equal(201);
      expectRateLimited(await check({ client: '198.51.100.200' }));
      // The client's own X-Forwarded-For entry is not believed: the proxy appended the address it saw.
      expectRateLimited(await check({ forwardedFor: '192.0.2.1, 198.51.100.200' }));
      expect((await check({ client: '198.51.100.201' })).status).to.equal(201);
    });

    it("an untrusted peer's X-Forwarded-For is ignored: it keeps the peer's bucket", async () => {
      for (let i = 0; i < 3; i++) expect((await check({ peer: '127.0.0.1', forwardedFor: `198.51.100.${210 + i}` })).status).to.equal(201);
      expectRateLimited(await check({ peer: '127.0.0.1', forwardedFor: '198.51.100.213' }));
    });

    it('a bad RATE_LIMITS or TRUSTED_PROXIES refuses to start, in one sentence', async () => {
      const start = (env: Record<string, string>) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          execFile(
            path.resolve('node_modules/.bin/tsx'),
            ['infrastructure/main/main.ts', 'migrate'],
            { env: { ...process.env, DATABASE_URL: '', NATS_URL: '', DATA_DIR: path.join(os.tmpdir(), `refused-${process.pid}`), ...env }, timeout: 60_000 },
            (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
          );
        });
      const limits = await start({ RATE_LIMITS: 'auth.login.adress=5/15m' });
      expect(limits.code).to.equal(1);
      expect(limits.stderr.trim()).to.equal('RATE_LIMITS names "auth.login.adress", which is not a limit listed in docs/auth.md');
      const proxies = await start({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' });
      expect(proxies.code).to.equal(1);
      expect(proxies.stderr.trim()).to.equal('TRUSTED_PROXIES entry "proxy.internal" is not an IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8');
    }).timeout(120_000);
  });
});
