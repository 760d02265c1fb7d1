import { expect } from 'chai';
import { deviceFingerprintOf, fraudAnalysisWithSession, openFingerprintSession } from '../../../../application/payments/device-fingerprint';

const analysing = { connectorSlug: 'sandbox', config: { antifraudEnabled: true } };
const session = { provider: 'sandbox-acquirer-fraud', sessionId: 'fps_01' };

describe('device fingerprint of the transparent checkout (Payments rule 6)', () => {
  it('opens a session only for a credit card with the customer present, on an account that runs the analysis with a known script', () => {
    const newId = () => 'fps_01';
    expect(openFingerprintSession({ methodType: 'card' }, analysing, newId)).to.deep.equal(session);
    expect(openFingerprintSession({ methodType: 'card', initiator: 'customer' }, analysing, newId)).to.deep.equal(session);
    expect(openFingerprintSession({ methodType: 'debit_card' }, analysing, newId)).to.equal(null);
    expect(openFingerprintSession({ methodType: 'card', initiator: 'merchant' }, analysing, newId)).to.equal(null);
    expect(openFingerprintSession({ methodType: 'card' }, { connectorSlug: 'sandbox', config: {} }, newId)).to.equal(null);
    expect(openFingerprintSession({ methodType: 'card' }, { connectorSlug: 'sandbox', config: { antifraudEnabled: 'true' } }, newId)).to.equal(null);
    expect(openFingerprintSession({ methodType: 'card' }, { connectorSlug: 'cielo', config: { antifraudEnabled: true } }, newId)).to.equal(null);
  });

  it('never stores a session id the acquirer would refuse', () => {
    expect(() => openFingerprintSession({ methodType: 'card' }, analysing, () => 'not allowed!')).to.throw(/Fingerprint session id/);
    expect(() => openFingerprintSession({ methodType: 'card' }, analysing, () => 'f'.repeat(89))).to.throw(/Fingerprint session id/);
  });

  it('the public view names the provider, the session and its script; null without a session', () => {
    expect(deviceFingerprintOf({ fingerprintSession: session })).to.deep.equal({ ...session, scriptUrl: '/checkout/device-fingerprint.js?session_id=fps_01' });
    expect(deviceFingerprintOf({ fingerprintSession: null })).to.equal(null);
    expect(deviceFingerprintOf({})).to.equal(null);
    expect(deviceFingerprintOf(null)).to.equal(null);
  });

  it("the authorization carries the checkout's session unless the body names its own", () => {
    expect(fraudAnalysisWithSession(undefined, { fingerprintSession: session })).to.deep.equal({ fingerprintSessionId: 'fps_01' });
    expect(fraudAnalysisWithSession({ fingerprintSessionId: 'merchant_own' }, { fingerprintSession: session })).to.deep.equal({ fingerprintSessionId: 'merchant_own' });
    expect(fraudAnalysisWithSession(undefined, { fingerprintSession: null })).to.equal(undefined);
    expect(fraudAnalysisWithSession(undefined, null)).to.equal(undefined);
  });
});
