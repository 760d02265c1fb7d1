import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { consumeResetToken, isResetTokenValid, issueResetToken } from '../../../../domain/identity/password-reset';

const t0 = new Date('2026-11-22T04:00:00Z');

describe('password reset token', () => {
  const token = issueResetToken({ id: 'prt_1', userId: 'usr_1', token: 'r'.repeat(43), now: t0 });

  it('is valid for 30 minutes', () => {
    expect(isResetTokenValid(token, new Date(t0.getTime() + 29 * 60_000))).to.equal(true);
    expect(isResetTokenValid(token, new Date(t0.getTime() + 30 * 60_000))).to.equal(false);
  });

  it('is single use', () => {
    const used = consumeResetToken(token, new Date(t0.getTime() + 1000));
    expect(() => consumeResetToken(used, new Date(t0.getTime() + 2000))).to.throw(DomainError).with.property('code', 'invalid_reset_token');
  });

  it('refuses an unknown token', () => {
    expect(() => consumeResetToken(null, t0)).to.throw(DomainError);
  });
});
