import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { createOwnerFromCli } from '../../../infrastructure/main/identity.module';
import { entityManager } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { purgeIdentityLeftovers } from '../../../infrastructure/persistence/identity-housekeeping';
import type { Transaction } from '../../../domain/ports/transactor';
import { ApiClient } from '../../support/api-client';
import { SmtpSink } from '../../support/smtp-sink';
import { startTestService, type TestService } from '../../support/test-service';
import { bearer, registerAndEnroll, registration, signIn, totp } from './identity-support';

describe('dashboard authentication (REST, PostgreSQL, SMTP sink)', () => {
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
      // Wrong codes per (user, address) are raised so the challenge's own lock (5 wrong codes) shows through.
      env: { RATE_LIMITS: 'auth.register.address=1000/15m,auth.login.address=1000/15m,auth.mfa.verify.address=1000/15m,auth.mfa.verify.account_address=1000/15m' },
    });
    api = new ApiClient(service.url);
  });

  after(async () => {
    await service?.stop();
    await sink?.stop();
  });

  const sql = (query: string, params: unknown[] = []) =>
    service.core.transactor.run((tx: Transaction) => entityManager(tx).execute<Array<Record<string, unknown>>>(query, params));

  describe('register', () => {
    it('creates company and owner and returns an enrollment challenge, no tokens', async () => {
      const response = await api.post('/v1/auth/register', registration());
      expect(response.status).to.equal(201);
      expect(response.body).to.have.keys(['challengeToken', 'stage', 'organization', 'user']);
      expect(response.body.stage).to.equal('mfa_setup_required');
      expect(response.body.organization.id).to.match(/^org_/);
      expect(response.body.user.id).to.match(/^usr_/);
      expect(response.body).to.not.have.property('accessToken');
    });

    it('refuses unknown fields, bad bounds, invalid documents, states and declarations with 422', async () => {
      const cases: Array<[unknown, string]> = [
        [{ ...registration(), extra: 1 }, 'body.extra'],
        [{ ...registration(), password: 'short-pass1' }, 'body.password'],
        [{ ...registration(), name: 'A' }, 'body.name'],
        [{ ...registration(), acceptedTerms: false }, 'body.acceptedTerms'],
        [{ ...registration(), authorizedRepresentative: false }, 'body.authorizedRepresentative'],
        [{ ...registration(), phone: '1'.repeat(33) }, 'body.phone'],
        [{ ...registration(), email: 'not-an-email' }, 'body.email'],
        [{ ...registration(), company: { ...registration().company, document: '11.222.333/0001-82' } }, 'body.company.document'],
        [{ ...registration(), company: { ...registration().company, address: { ...registration().company.address, state: 'XX' } } }, 'body.company.address.state'],
        [{ ...registration(), company: { ...registration().company, website: 'not a uri' } }, 'body.company.website'],
        [{ ...registration(), company: { ...registration().company, website: 'javascript:alert(document.cookie)' } }, 'body.company.website'],
        [{ ...registration(), company: { ...registration().company, website: 'vbscript:msgbox(1)' } }, 'body.company.website'],
        [{ ...registration(), company: { ...registration().company, address: { ...registration().company.address, streetNumber: '' } } }, 'body.company.address.streetNumber'],
      ];
      for (const [body, param] of cases) {
        const response = await api.post('/v1/auth/register', body);
        expect(response.status, `${param}: ${response.text}`).to.equal(422);
        expect(response.body.error.code).to.equal('validation_failed');
        const params = [response.body.error.param, ...response.body.error.details.map((d: { param: string }) => d.param)];
        expect(params.some((p: string) => p.startsWith(param)), `${param} in ${params.join(',')}`).to.equal(true);
      }
    });

    it('an e-mail registers once; a reused document gets no new trial', async () => {
      const first = registration();
      expect((await api.post('/v1/auth/register', first)).status).to.equal(201);
      const again = await api.post('/v1/auth/register', { ...registration(), email: first.email.toUpperCase() });
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('email_already_registered');
      const reuse = await api.post('/v1/auth/register', registration({ document: first.company.document }));
      expect(reuse.status).to.equal(201);
      const rows = await sql(`select trial_eligible from identity_organization_profiles where organization_id = ?`, [reuse.body.organization.id]);
      expect(rows[0]!.trial_eligible).to.equal(false);
    });
  });

  describe('second factor', () => {
    it('setup returns a manual key, an otpauth URL and a local QR code; the challenge alone opens nothing', async () => {
      const registered = await api.post('/v1/auth/register', registration());
      const status = await api.post('/v1/auth/mfa/status', { challengeToken: registered.body.challengeToken });
      expect(status.status).to.equal(201);
      expect(status.body.stage).to.equal('mfa_setup_required');
      const setup = await api.post('/v1/auth/mfa/setup', { challengeToken: registered.body.challengeToken });
      expect(setup.status).to.equal(201);
      expect(setup.body.manualKey).to.match(/^[A-Z2-7]{32}$/);
      expect(setup.body.otpauthUrl).to.match(/^otpauth:\/\/totp\//).and.contain(`secret=${setup.body.manualKey}`);
      expect(setup.body.qrCode).to.match(/^data:image\/png;base64,/);
      const me = await api.get('/v1/auth/me', bearer(registered.body.challengeToken));
      expect(me.status).to.equal(401);
    });

    it('refuses a wrong code, then completes with a code from the authenticator app; tokens are a Bearer pair', async () => {
      const registered = await api.post('/v1/auth/register', registration());
      const setup = await api.post('/v1/auth/mfa/setup', { challengeToken: registered.body.challengeToken });
      const wrongCode = totp(setup.body.manualKey, new Date(clock.now().getTime() + 300_000));
      const wrong = await api.post('/v1/auth/mfa/verify', { challengeToken: registered.body.challengeToken, mfaCode: wrongCode });
      expect(wrong.status).to.equal(401);
      expect(wrong.body.error.code).to.equal('invalid_mfa_code');
      const ok = await api.post('/v1/auth/mfa/verify', { challengeToken: registered.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(ok.status).to.equal(201);
      expect(ok.body).to.include({ tokenType: 'Bearer', expiresIn: 900 });
      expect(ok.body.accessToken).to.be.a('string');
      expect(ok.body.refreshToken.length).to.be.within(16, 2048);
      expect(ok.body.recoveryCodes).to.have.length(10);
      const again = await api.post('/v1/auth/mfa/verify', { challengeToken: registered.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(again.status).to.equal(401);
      expect(again.body.error.code).to.equal('invalid_challenge');
      const status = await api.post('/v1/auth/mfa/status', { challengeToken: registered.body.challengeToken });
      expect(status.body.stage).to.equal('completed');
      clock.advance(10 * 60_000);
      expect((await api.post('/v1/auth/mfa/status', { challengeToken: registered.body.challengeToken })).status).to.equal(401);
    });

    it('a challenge opened before the first enrollment cannot enroll another authenticator once one is confirmed', async () => {
      const body = registration();
      const registered = await api.post('/v1/auth/register', body);
      const earlier = await api.post('/v1/auth/login', { email: body.email, password: body.password });
      expect(earlier.body.stage).to.equal('mfa_setup_required');
      const proposed = await api.post('/v1/auth/mfa/setup', { challengeToken: earlier.body.challengeToken });
      expect(proposed.status).to.equal(201);

      const setup = await api.post('/v1/auth/mfa/setup', { challengeToken: registered.body.challengeToken });
      const enrolled = await api.post('/v1/auth/mfa/verify', { challengeToken: registered.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(enrolled.status).to.equal(201);

      // The stale challenge (and with it the password alone) neither confirms its proposed secret nor proposes a new one.
      const stale = await api.post('/v1/auth/mfa/verify', { challengeToken: earlier.body.challengeToken, mfaCode: totp(proposed.body.manualKey, clock.now()) });
      expect(stale.status).to.equal(401);
      expect(stale.body.error.code).to.equal('invalid_challenge');
      const again = await api.post('/v1/auth/mfa/setup', { challengeToken: earlier.body.challengeToken });
      expect(again.status).to.equal(401);
      expect(again.body.error.code).to.equal('invalid_challenge');

      // The confirmed authenticator stays the one a login asks for.
      clock.advance(30_000);
      const login = await api.post('/v1/auth/login', { email: body.email, password: body.password });
      expect(login.body.stage).to.equal('mfa_required');
      const ok = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(ok.status).to.equal(201);
    });

    it('verify bounds: mfaCode exactly 6 digits, recoveryCode 24-40, exactly one of them, challenge 32-128', async () => {
      const token = 'x'.repeat(43);
      for (const body of [
        { challengeToken: token, mfaCode: '12345' },
        { challengeToken: token, mfaCode: '1234567' },
        { challengeToken: token, mfaCode: 'abcdef' },
        { challengeToken: token, recoveryCode: 'x'.repeat(23) },
        { challengeToken: token, recoveryCode: 'x'.repeat(41) },
        { challengeToken: token },
        { challengeToken: token, mfaCode: '123456', recoveryCode: 'x'.repeat(29) },
        { challengeToken: 'x'.repeat(31), mfaCode: '123456' },
        { challengeToken: 'x'.repeat(129), mfaCode: '123456' },
      ]) {
        const response = await api.post('/v1/auth/mfa/verify', body);
        expect(response.status, JSON.stringify(body)).to.equal(422);
      }
    });

    it('login gives a challenge and no tokens; a code cannot be replayed inside its window', async () => {
      const user = await registerAndEnroll(api, clock);
      const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
      expect(login.status).to.equal(201);
      expect(login.body).to.have.keys(['challengeToken', 'stage']);
      expect(login.body.stage).to.equal('mfa_required');
      const code = totp(user.secret, clock.now());
      expect((await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: code })).status).to.equal(201);
      clock.advance(5_000);
      const second = await api.post('/v1/auth/login', { email: user.email, password: user.password });
      const replay = await api.post('/v1/auth/mfa/verify', { challengeToken: second.body.challengeToken, mfaCode: code });
      expect(replay.status).to.equal(401);
      expect(replay.body.error.code).to.equal('invalid_mfa_code');
      clock.advance(30_000);
      const fresh = await api.post('/v1/auth/mfa/verify', { challengeToken: second.body.challengeToken, mfaCode: totp(user.secret, clock.now()) });
      expect(fresh.status).to.equal(201);
      clock.advance(30_000);
    });

    it('stores the TOTP secret sealed (AES-256-GCM), never in clear', async () => {
      const user = await registerAndEnroll(api, clock);
      const rows = await sql(`select totp_secret from identity_users where id = ?`, [user.userId]);
      expect(rows[0]!.totp_secret).to.match(/^sealed:/);
      expect(String(rows[0]!.totp_secret)).to.not.contain(user.secret);
    });

    it('login does not reveal whether the e-mail exists', async () => {
      const user = await registerAndEnroll(api, clock);
      const wrongPassword = await api.post('/v1/auth/login', { email: user.email, password: 'wrong password here' });
      const unknown = await api.post('/v1/auth/login', { email: `nobody-${Date.now()}@example.com`, password: 'wrong password here' });
      expect(wrongPassword.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrongPassword.body.error.code).to.equal(unknown.body.error.code);
      expect(wrongPassword.body.error.message).to.equal(unknown.body.error.message);
    });

    it('a recovery code returns a new enrollment challenge instead of tokens; the new authenticator replaces the old', async () => {
      const user = await registerAndEnroll(api, clock);
      const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
      const recovered = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, recoveryCode: user.recoveryCodes[0] });
      expect(recovered.status, recovered.text).to.equal(201);
      expect(recovered.body).to.have.keys(['challengeToken', 'stage']);
      expect(recovered.body.stage).to.equal('mfa_setup_required');
      expect(recovered.body.challengeToken).to.not.equal(login.body.challengeToken);
      expect((await api.post('/v1/auth/mfa/status', { challengeToken: login.body.challengeToken })).status).to.equal(401);

      const setup = await api.post('/v1/auth/mfa/setup', { challengeToken: recovered.body.challengeToken });
      const done = await api.post('/v1/auth/mfa/verify', { challengeToken: recovered.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(done.status).to.equal(201);
      expect(done.body.accessToken).to.be.a('string');
      clock.advance(30_000);

      const count = await api.get('/v1/auth/mfa/recovery-codes', bearer(done.body.accessToken));
      expect(count.body).to.deep.equal({ available: 9 });

      const reuse = await api.post('/v1/auth/login', { email: user.email, password: user.password });
      const used = await api.post('/v1/auth/mfa/verify', { challengeToken: reuse.body.challengeToken, recoveryCode: user.recoveryCodes[0] });
      expect(used.status).to.equal(401);
      expect(used.body.error.code).to.equal('invalid_recovery_code');
      const oldPhone = await api.post('/v1/auth/mfa/verify', { challengeToken: reuse.body.challengeToken, mfaCode: totp(user.secret, clock.now()) });
      expect(oldPhone.status).to.equal(401);
      const newPhone = await api.post('/v1/auth/mfa/verify', { challengeToken: reuse.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(newPhone.status).to.equal(201);
      clock.advance(30_000);
    });

    it('regenerating recovery codes needs the password and a code, and invalidates the old codes', async () => {
      const user = await registerAndEnroll(api, clock);
      const auth = bearer(user.accessToken);
      const badPassword = await api.post('/v1/auth/mfa/recovery-codes', { currentPassword: 'nope', mfaCode: totp(user.secret, clock.now()) }, auth);
      expect(badPassword.status).to.equal(422);
      const fresh = await api.post('/v1/auth/mfa/recovery-codes', { currentPassword: user.password, mfaCode: totp(user.secret, clock.now()) }, auth);
      expect(fresh.status, fresh.text).to.equal(201);
      expect(fresh.body.recoveryCodes).to.have.length(10);
      clock.advance(30_000);
      const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
      const old = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, recoveryCode: user.recoveryCodes[1] });
      expect(old.status).to.equal(401);
      const current = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, recoveryCode: fresh.body.recoveryCodes[0] });
      expect(current.status).to.equal(201);
      expect(current.body.stage).to.equal('mfa_setup_required');
    });

    it('five wrong codes lock the challenge', async () => {
      const user = await registerAndEnroll(api, clock);
      const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
      const wrong = totp(user.secret, new Date(clock.now().getTime() + 600_000));
      for (let i = 0; i < 5; i++) await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: wrong });
      const right = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: totp(user.secret, clock.now()) });
      expect(right.status).to.equal(401);
      expect(right.body.error.code).to.equal('invalid_challenge');
    });
  });

  describe('sessions', () => {
    it('GET /v1/auth/me shows user, organization, role scopes and the environment header', async () => {
      const user = await registerAndEnroll(api, clock);
      const me = await api.get('/v1/auth/me', bearer(user.accessToken));
      expect(me.status).to.equal(200);
      expect(me.body.credential).to.equal('session');
      expect(me.body.user).to.include({ id: user.userId, email: user.email });
      expect(me.body.organization.id).to.equal(user.organizationId);
      expect(me.body.role).to.equal('owner');
      expect(me.body.scopes).to.include.members(['payments:write', 'api_keys:write', 'security:write']);
      expect(me.body.environment).to.equal('sandbox');
      const live = await api.get('/v1/auth/me', { ...bearer(user.accessToken), 'Service-Environment': 'live' });
      expect(live.body.environment).to.equal('live');
      const bad = await api.get('/v1/auth/me', { ...bearer(user.accessToken), 'Service-Environment': 'prod' });
      expect(bad.status).to.equal(422);
    });

    it('refresh rotates; reusing an old refresh token refuses and ends the family', async () => {
      const user = await registerAndEnroll(api, clock);
      const first = await api.post('/v1/auth/refresh', { refreshToken: user.refreshToken });
      expect(first.status).to.equal(201);
      expect(first.body).to.include({ tokenType: 'Bearer', expiresIn: 900 });
      expect(first.body.refreshToken).to.not.equal(user.refreshToken);
      const second = await api.post('/v1/auth/refresh', { refreshToken: first.body.refreshToken });
      expect(second.status).to.equal(201);
      const reuse = await api.post('/v1/auth/refresh', { refreshToken: user.refreshToken });
      expect(reuse.status).to.equal(401);
      const afterReuse = await api.post('/v1/auth/refresh', { refreshToken: second.body.refreshToken });
      expect(afterReuse.status).to.equal(401);
      expect((await api.get('/v1/auth/me', bearer(second.body.accessToken))).status).to.equal(401);
      expect((await api.post('/v1/auth/refresh', { refreshToken: 'short' })).status).to.equal(422);
    });

    it('logout ends every session of the user at once', async () => {
      const user = await registerAndEnroll(api, clock);
      const other = await signIn(api, clock, user);
      const logout = await api.post('/v1/auth/logout', undefined, bearer(user.accessToken));
      expect(logout.status).to.equal(201);
      expect((await api.get('/v1/auth/me', bearer(user.accessToken))).status).to.equal(401);
      expect((await api.get('/v1/auth/me', bearer(other.accessToken))).status).to.equal(401);
      expect((await api.post('/v1/auth/refresh', { refreshToken: other.refreshToken })).status).to.equal(401);
      expect((await api.post('/v1/auth/refresh', { refreshToken: user.refreshToken })).status).to.equal(401);
      const back = await signIn(api, clock, user);
      expect((await api.get('/v1/auth/me', bearer(back.accessToken))).status).to.equal(200);
    });

    it('change-password ends the other sessions and keeps this one', async () => {
      const user = await registerAndEnroll(api, clock);
      const other = await signIn(api, clock, user);
      const wrong = await api.post('/v1/auth/change-password', { currentPassword: 'not it', newPassword: 'another long password' }, bearer(user.accessToken));
      expect(wrong.status).to.equal(422);
      const short = await api.post('/v1/auth/change-password', { currentPassword: user.password, newPassword: 'short' }, bearer(user.accessToken));
      expect(short.status).to.equal(422);
      const changed = await api.post('/v1/auth/change-password', { currentPassword: user.password, newPassword: 'another long password' }, bearer(user.accessToken));
      expect(changed.status).to.equal(201);
      expect((await api.get('/v1/auth/me', bearer(user.accessToken))).status).to.equal(200);
      expect((await api.get('/v1/auth/me', bearer(other.accessToken))).status).to.equal(401);
      expect((await api.post('/v1/auth/refresh', { refreshToken: other.refreshToken })).status).to.equal(401);
      expect((await api.post('/v1/auth/login', { email: user.email, password: user.password })).status).to.equal(401);
      expect((await api.post('/v1/auth/login', { email: user.email, password: 'another long password' })).status).to.equal(201);
    });

    it('an API key cannot use session routes', async () => {
      const merchant = await service.merchant();
      const logout = await merchant.sandbox.post('/v1/auth/logout');
      expect(logout.status).to.equal(403);
      const me = await merchant.sandbox.get('/v1/auth/me');
      expect(me.status).to.equal(200);
      expect(me.body).to.include({ credential: 'api_key', environment: 'sandbox', user: null });
    });
  });

  describe('password reset', () => {
    it('forgot-password answers the same for unknown e-mails and sends a link by SMTP for known ones', async () => {
      const user = await registerAndEnroll(api, clock);
      const session = await signIn(api, clock, user);
      const unknown = await api.post('/v1/auth/forgot-password', { email: `ghost-${Date.now()}@example.com` });
      const known = await api.post('/v1/auth/forgot-password', { email: user.email });
      expect(unknown.status).to.equal(201);
      expect(known.status).to.equal(201);
      expect(known.body).to.deep.equal(unknown.body);

      const mail = await sink.waitFor((m) => m.to.includes(user.email));
      const token = /Reset token: (\S+)/.exec(mail.text)?.[1];
      expect(token, mail.text).to.be.a('string');
      expect(mail.text).to.contain('/reset-password?token=');

      const check = await api.post('/v1/auth/password-reset/check', { resetToken: token });
      expect(check.status).to.equal(201);
      expect(check.body.valid).to.equal(true);
      expect((await api.post('/v1/auth/password-reset/check', { resetToken: token })).body.valid).to.equal(true);

      const reset = await api.post('/v1/auth/reset-password', { resetToken: token, newPassword: 'a brand new password' });
      expect(reset.status).to.equal(201);
      const again = await api.post('/v1/auth/reset-password', { resetToken: token, newPassword: 'yet another password' });
      expect(again.status).to.equal(422);
      expect(again.body.error.code).to.equal('invalid_reset_token');
      expect((await api.post('/v1/auth/password-reset/check', { resetToken: token })).body.valid).to.equal(false);

      expect((await api.get('/v1/auth/me', bearer(session.accessToken))).status).to.equal(401);
      expect((await api.post('/v1/auth/refresh', { refreshToken: user.refreshToken })).status).to.equal(401);
      const login = await api.post('/v1/auth/login', { email: user.email, password: 'a brand new password' });
      expect(login.status).to.equal(201);
      expect(login.body.stage).to.equal('mfa_required');
      const verify = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: totp(user.secret, clock.now()) });
      expect(verify.status).to.equal(201);
      clock.advance(30_000);
    });

    it('a reset link expires after 30 minutes', async () => {
      const user = await registerAndEnroll(api, clock);
      const before = sink.messages.length;
      await api.post('/v1/auth/forgot-password', { email: user.email });
      const mail = await sink.waitFor((m) => m.to.includes(user.email) && sink.messages.indexOf(m) >= before);
      const token = /Reset token: (\S+)/.exec(mail.text)![1];
      clock.advance(29 * 60_000);
      expect((await api.post('/v1/auth/password-reset/check', { resetToken: token })).body.valid).to.equal(true);
      clock.advance(60_000);
      expect((await api.post('/v1/auth/password-reset/check', { resetToken: token })).body.valid).to.equal(false);
      expect((await api.post('/v1/auth/reset-password', { resetToken: token, newPassword: 'a brand new password' })).status).to.equal(422);
    });
  });

  describe('account alerts and the operators\' CLI', () => {
    it('a password change is announced by e-mail', async () => {
      const user = await registerAndEnroll(api, clock);
      await api.post('/v1/auth/change-password', { currentPassword: user.password, newPassword: 'another long password' }, bearer(user.accessToken));
      const mail = await sink.waitFor((m) => m.to.includes(user.email) && /password was changed/.test(m.subject));
      expect(mail.text).to.contain('If it was you');
    });

    it('org create --email makes an owner who sets a password with the reset token and enrolls at first login', async () => {
      const organization = await service.core.organizations.create.execute({ name: 'CLI Co' });
      const email = `cli-${Date.now()}@example.com`;
      const owner = (await createOwnerFromCli(service.core, organization.id, { email })) as { passwordResetToken: string };
      const reset = await api.post('/v1/auth/reset-password', { resetToken: owner.passwordResetToken, newPassword: 'operator chosen password' });
      expect(reset.status).to.equal(201);
      const login = await api.post('/v1/auth/login', { email, password: 'operator chosen password' });
      expect(login.body.stage).to.equal('mfa_setup_required');
      const setup = await api.post('/v1/auth/mfa/setup', { challengeToken: login.body.challengeToken });
      const verify = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: totp(setup.body.manualKey, clock.now()) });
      expect(verify.status).to.equal(201);
      const me = await api.get('/v1/auth/me', bearer(verify.body.accessToken));
      expect(me.body).to.deep.include({ role: 'owner' });
      expect(me.body.organization.id).to.equal(organization.id);
      clock.advance(30_000);
    });
  });

  describe('rate limits', () => {
    it('verify is limited per account across challenges', async () => {
      const user = await registerAndEnroll(api, clock);
      const wrong = totp(user.secret, new Date(clock.now().getTime() + 900_000));
      let last;
      for (let round = 0; round < 3; round++) {
        const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
        for (let i = 0; i < 4; i++) last = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: wrong });
      }
      expect(last!.status).to.equal(429);
      expect(Number(last!.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('the per-account limits count failures only: a user who signs in more often than the limit is never refused', async () => {
      const user = await registerAndEnroll(api, clock);
      for (let round = 0; round < 12; round++) {
        clock.advance(30_000); // a new TOTP step: a code is accepted once
        const login = await api.post('/v1/auth/login', { email: user.email, password: user.password });
        expect(login.status, `login ${round}`).to.equal(201);
        const verified = await api.post('/v1/auth/mfa/verify', { challengeToken: login.body.challengeToken, mfaCode: totp(user.secret, clock.now()) });
        expect(verified.status, `verify ${round}`).to.equal(201);
      }
    });

    it('login is limited per account with 429 and Retry-After', async () => {
      const user = await registerAndEnroll(api, clock);
      let last = await api.post('/v1/auth/login', { email: user.email, password: 'wrong password' });
      for (let i = 0; i < 10 && last.status !== 429; i++) last = await api.post('/v1/auth/login', { email: user.email, password: 'wrong password' });
      expect(last.status).to.equal(429);
      expect(last.body.error.code).to.equal('rate_limited');
      expect(Number(last.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });

  describe('accounts and brands', () => {
    it('the owner creates a brand, lists both, and switches with the role held there', async () => {
      const owner = await registerAndEnroll(api, clock);
      const created = await api.post('/v1/auth/accounts', { name: 'ACME Outlet' }, bearer(owner.accessToken));
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ name: 'ACME Outlet', parentOrganizationId: owner.organizationId, website: '' });
      const list = await api.get('/v1/auth/accounts', bearer(owner.accessToken));
      expect(list.body.data.map((a: { id: string }) => a.id)).to.have.members([owner.organizationId, created.body.id]);
      const switched = await api.post('/v1/auth/switch-account', { organizationId: created.body.id }, bearer(owner.accessToken));
      expect(switched.status).to.equal(201);
      const me = await api.get('/v1/auth/me', bearer(switched.body.accessToken));
      expect(me.body.organization.id).to.equal(created.body.id);
      expect(me.body.role).to.equal('owner');
      const rows = await sql(`select trial_eligible from identity_organization_profiles where organization_id = ?`, [created.body.id]);
      expect(rows[0]!.trial_eligible).to.equal(false);
      expect((await api.post('/v1/auth/accounts', { name: 'X' }, bearer(owner.accessToken))).status).to.equal(422);
      expect((await api.post('/v1/auth/accounts', { name: 'Valid', website: 'nope' }, bearer(owner.accessToken))).status).to.equal(422);
      const script = await api.post('/v1/auth/accounts', { name: 'Valid', website: 'javascript:alert(1)' }, bearer(owner.accessToken));
      expect(script.status, 'a website is http(s) only').to.equal(422);
      expect(script.body.error).to.include({ code: 'validation_failed', param: 'body.website' });
    });

    it('switching to an unrelated account is refused; other roles cannot create brands or manage keys', async () => {
      const owner = await registerAndEnroll(api, clock);
      const stranger = await registerAndEnroll(api, clock);
      const refused = await api.post('/v1/auth/switch-account', { organizationId: stranger.organizationId }, bearer(owner.accessToken));
      expect(refused.status).to.equal(404);

      const roles = ['administrator', 'developer', 'analyst'] as const;
      for (const role of roles) {
        const member = await registerAndEnroll(api, clock);
        await sql(`insert into identity_memberships (user_id, organization_id, role, created_at) values (?, ?, ?, now())`, [member.userId, owner.organizationId, role]);
        const switched = await api.post('/v1/auth/switch-account', { organizationId: owner.organizationId }, bearer(member.accessToken));
        expect(switched.status).to.equal(201);
        const auth = bearer(switched.body.accessToken);
        const me = await api.get('/v1/auth/me', auth);
        expect(me.body.role).to.equal(role);
        expect((await api.post('/v1/auth/accounts', { name: 'Brand' }, auth)).status).to.equal(403);
        const key = await api.post('/v1/api-keys', { name: 'k', environment: 'sandbox' }, auth);
        expect(key.status, `${role}: ${key.text}`).to.equal(role === 'administrator' ? 201 : 403);
        const policy = await api.get('/v1/security/policy', auth);
        expect(policy.status).to.equal(role === 'administrator' ? 200 : 403);
      }
    });
  });

  describe('API keys', () => {
    it('an owner creates, lists and revokes keys; the secret is shown once', async () => {
      const owner = await registerAndEnroll(api, clock);
      const auth = bearer(owner.accessToken);
      const created = await api.post('/v1/api-keys', { name: 'Backend', environment: 'live', scopes: ['payments:read', 'events:read'] }, auth);
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ object: 'api_key', name: 'Backend', environment: 'live' });
      expect(created.body.id).to.match(/^key_/);
      expect(created.body.secret).to.match(/^sk_live_/);
      expect(created.body.last4).to.equal(created.body.secret.slice(-4));
      expect(created.body.scopes).to.have.members(['payments:read', 'events:read']);

      const me = await api.get('/v1/auth/me', bearer(created.body.secret));
      expect(me.body).to.include({ credential: 'api_key', environment: 'live' });
      expect(me.body.organization.id).to.equal(owner.organizationId);
      expect(me.body.scopes).to.deep.equal(['events:read', 'payments:read']);

      const list = await api.get('/v1/api-keys', auth);
      expect(list.body.data.map((k: { id: string }) => k.id)).to.include(created.body.id);
      expect(JSON.stringify(list.body)).to.not.contain(created.body.secret);

      expect((await api.post('/v1/api-keys', { name: 'k', environment: 'live' }, bearer(created.body.secret))).status).to.equal(403);
      expect((await api.post('/v1/api-keys', { name: '', environment: 'live' }, auth)).status).to.equal(422);
      expect((await api.post('/v1/api-keys', { name: 'k', environment: 'prod' }, auth)).status).to.equal(422);
      expect((await api.post('/v1/api-keys', { name: 'k', environment: 'live', scopes: ['payments:delete'] }, auth)).status).to.equal(422);

      const revoked = await api.delete(`/v1/api-keys/${created.body.id}`, auth);
      expect(revoked.status).to.equal(200);
      expect((await api.get('/v1/auth/me', bearer(created.body.secret))).status).to.equal(401);
      expect((await api.delete(`/v1/api-keys/${created.body.id}`, auth)).status).to.equal(404);
    });
  });

  describe('housekeeping (runs last: it ages everything)', () => {
    it('purges expired challenges, reset links, ended sessions, Idempotency-Keys past 24 hours and ended rate-limit windows, and keeps live ones', async () => {
      const user = await registerAndEnroll(api, clock);
      await sql(`insert into idempotency_keys (organization_id, environment, route, key, request_hash, state, created_at, locked_until, expires_at)
                 values ('org_purge', 'sandbox', 'POST /v1/payments', 'k1', 'h', 'completed', ?, ?, ?)`, [clock.now(), clock.now(), new Date(clock.now().getTime() + 86_400_000)]);
      await sql(`insert into payment_idempotency_keys (organization_id, environment, key, payment_id, created_at) values ('org_purge', 'sandbox', 'k1', 'pay_1', ?)`, [clock.now()]);
      await sql(`insert into rate_limits (key, points, expire) values ('rl5_3600:purge', 1, ?)`, [clock.now().getTime() + 3_600_000]);
      const soon = await purgeIdentityLeftovers(service.core.transactor, clock.now());
      // Within their 24 hours, an Idempotency-Key and a payment's binding to it stay.
      expect((await sql(`select count(*)::int as n from idempotency_keys where organization_id = 'org_purge'`))[0]!.n).to.equal(1);
      expect((await sql(`select count(*)::int as n from payment_idempotency_keys where organization_id = 'org_purge'`))[0]!.n).to.equal(1);
      expect((await sql(`select count(*)::int as n from rate_limits where key = 'rl5_3600:purge'`))[0]!.n, 'a window still running').to.equal(1);
      expect((await api.get('/v1/auth/me', bearer(user.accessToken))).status).to.equal(200);
      expect(soon.challenges).to.be.a('number');
      const later = await purgeIdentityLeftovers(service.core.transactor, new Date(clock.now().getTime() + 61 * 86_400_000));
      expect(later.challenges).to.be.greaterThan(0);
      expect(later.sessions).to.be.greaterThan(0);
      expect((await sql(`select count(*)::int as n from identity_challenges`))[0]!.n).to.equal(0);
      expect((await sql(`select count(*)::int as n from idempotency_keys where organization_id = 'org_purge'`))[0]!.n).to.equal(0);
      expect((await sql(`select count(*)::int as n from payment_idempotency_keys where organization_id = 'org_purge'`))[0]!.n).to.equal(0);
      expect((await sql(`select count(*)::int as n from rate_limits where key = 'rl5_3600:purge'`))[0]!.n).to.equal(0);
      expect(later.rateLimitWindows).to.be.greaterThan(0);
    });
  });
});
