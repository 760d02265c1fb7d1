import { expect } from 'chai';
import { detectCardTesting, pseudonymize, type CardAttempt } from '../../../../domain/security/card-testing';
import { DEFAULT_SECURITY_POLICY } from '../../../../domain/security/security-policy';

const now = new Date('2026-11-22T04:10:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
const attempt = (over: Partial<CardAttempt>): CardAttempt => ({
  at: ago(60),
  clientIpHash: 'ip1',
  deviceIdHash: null,
  cardFingerprint: 'card1',
  declined: true,
  ...over,
});

describe('card-testing detector (contract.md 7)', () => {
  it('10 declined card payments sharing a clientIp within 10 minutes open a signal; 9 do not', () => {
    const nine = Array.from({ length: 9 }, () => attempt({}));
    expect(detectCardTesting(nine, DEFAULT_SECURITY_POLICY, now)).to.deep.equal([]);
    const ten = [...nine, attempt({})];
    const signals = detectCardTesting(ten, DEFAULT_SECURITY_POLICY, now);
    expect(signals).to.have.length(1);
    expect(signals[0]).to.include({ kind: 'client_ip', valueHash: 'ip1', reason: 'declined_threshold', declinedCount: 10 });
  });

  it('counts a shared deviceId across different addresses', () => {
    const attempts = Array.from({ length: 10 }, (_, i) => attempt({ clientIpHash: `ip${i}`, deviceIdHash: 'dev1' }));
    const signals = detectCardTesting(attempts, DEFAULT_SECURITY_POLICY, now);
    expect(signals.map((s) => s.kind)).to.deep.equal(['device_id']);
  });

  it('5 distinct cards from one address open a signal even when approved; 4 do not', () => {
    const four = Array.from({ length: 4 }, (_, i) => attempt({ cardFingerprint: `card${i}`, declined: false }));
    expect(detectCardTesting(four, DEFAULT_SECURITY_POLICY, now)).to.deep.equal([]);
    const five = [...four, attempt({ cardFingerprint: 'card9', declined: false })];
    expect(detectCardTesting(five, DEFAULT_SECURITY_POLICY, now)[0]).to.include({ reason: 'distinct_cards_threshold', distinctCards: 5 });
  });

  it('ignores attempts older than the 10-minute window', () => {
    const attempts = [...Array.from({ length: 9 }, () => attempt({})), attempt({ at: ago(601) })];
    expect(detectCardTesting(attempts, DEFAULT_SECURITY_POLICY, now)).to.deep.equal([]);
  });

  it('approved payments do not count towards the decline threshold', () => {
    const attempts = Array.from({ length: 12 }, (_, i) => attempt({ declined: i % 2 === 0 }));
    expect(detectCardTesting(attempts, DEFAULT_SECURITY_POLICY, now)).to.deep.equal([]);
  });

  it('pseudonymizes addresses with a keyed hash', () => {
    const a = pseudonymize('client_ip', '203.0.113.7', 'key1');
    expect(a).to.not.contain('203');
    expect(a).to.equal(pseudonymize('client_ip', '203.0.113.7', 'key1'));
    expect(a).to.not.equal(pseudonymize('client_ip', '203.0.113.7', 'key2'));
    expect(a).to.not.equal(pseudonymize('device_id', '203.0.113.7', 'key1'));
  });
});
