import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import {
  formatRefreshToken,
  isSessionActive,
  parseRefreshToken,
  revokeSession,
  rotateSession,
  sessionsToEndOnPasswordChange,
  startSession,
} from '../../../../domain/identity/session';
import { advanceTokensValidAfter, type User } from '../../../../domain/identity/user';

const t0 = new Date('2026-11-22T04:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const epoch = new Date(0);

describe('session (refresh token family)', () => {
  it('rotates on every use: the new token works, the old one does not', () => {
    const session = startSession({ id: 'ses_1', userId: 'usr_1', organizationId: 'org_1', secret: 'a'.repeat(43), now: t0 });
    const first = rotateSession(session, 'a'.repeat(43), 'b'.repeat(43), epoch, later(1000));
    expect(first.outcome).to.equal('rotated');
    expect(first.session.generation).to.equal(2);
    const second = rotateSession(first.session, 'b'.repeat(43), 'c'.repeat(43), epoch, later(2000));
    expect(second.outcome).to.equal('rotated');
  });

  it('reusing an old refresh token revokes the whole family', () => {
    const session = startSession({ id: 'ses_1', userId: 'usr_1', organizationId: 'org_1', secret: 'a'.repeat(43), now: t0 });
    const rotated = rotateSession(session, 'a'.repeat(43), 'b'.repeat(43), epoch, later(1000)).session;
    const reuse = rotateSession(rotated, 'a'.repeat(43), 'x'.repeat(43), epoch, later(2000));
    expect(reuse.outcome).to.equal('reuse_detected');
    expect(reuse.session.revokedReason).to.equal('reuse_detected');
    expect(() => rotateSession(reuse.session, 'b'.repeat(43), 'y'.repeat(43), epoch, later(3000)))
      .to.throw(DomainError)
      .with.property('code', 'unauthorized');
  });

  it('logout advances tokensValidAfter, which voids every earlier session', () => {
    const session = startSession({ id: 'ses_1', userId: 'usr_1', organizationId: 'org_1', secret: 's', now: t0 });
    const user = { tokensValidAfter: epoch } as User;
    expect(isSessionActive(session, user.tokensValidAfter, later(1))).to.equal(true);
    const loggedOut = advanceTokensValidAfter(user, later(10));
    expect(isSessionActive(session, loggedOut.tokensValidAfter, later(11))).to.equal(false);
    const next = startSession({ id: 'ses_2', userId: 'usr_1', organizationId: 'org_1', secret: 's', now: later(20) });
    expect(isSessionActive(next, loggedOut.tokensValidAfter, later(21))).to.equal(true);
  });

  it('tokensValidAfter never moves backwards', () => {
    const user = { tokensValidAfter: later(100) } as User;
    expect(advanceTokensValidAfter(user, later(50)).tokensValidAfter.getTime()).to.be.greaterThan(later(100).getTime());
  });

  it('expires after 30 days', () => {
    const session = startSession({ id: 'ses_1', userId: 'usr_1', organizationId: 'org_1', secret: 's', now: t0 });
    expect(isSessionActive(session, epoch, later(30 * 86400_000))).to.equal(false);
  });

  it('change of password ends the other sessions only', () => {
    const a = startSession({ id: 'ses_a', userId: 'u', organizationId: 'o', secret: 's', now: t0 });
    const b = startSession({ id: 'ses_b', userId: 'u', organizationId: 'o', secret: 's', now: t0 });
    const c = revokeSession(startSession({ id: 'ses_c', userId: 'u', organizationId: 'o', secret: 's', now: t0 }), 'logout', t0);
    expect(sessionsToEndOnPasswordChange([a, b, c], 'ses_a').map((s) => s.id)).to.deep.equal(['ses_b']);
  });

  it('formats and parses refresh tokens', () => {
    expect(parseRefreshToken(formatRefreshToken('ses_01ABC', 'secret_x'))).to.deep.equal({ familyId: 'ses_01ABC', secret: 'secret_x' });
    expect(parseRefreshToken('nodot')).to.equal(null);
    expect(parseRefreshToken('.x')).to.equal(null);
  });
});
