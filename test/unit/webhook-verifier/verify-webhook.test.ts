import { expect } from 'chai';
import { generateWebhookSecret, sign } from '../../../infrastructure/crypto/webhook-signer';
import { verifyWebhook, WebhookVerificationError, parseSignatureHeader } from '../../../webhook-verifier/src';

const now = 1_767_225_600; // 2026-01-01T00:00:00Z
const body = JSON.stringify({ id: 'evt_1', type: 'payment.captured', apiVersion: '2026-01-01', createdAt: '2026-01-01T00:00:00.000Z',
  environment: 'sandbox', sequence: 1, data: { object: { object: 'payment', id: 'pay_1', status: 'captured' } } });

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).code;
  }
  throw new Error('expected a verification error');
}

describe('webhook signing and the reference verifier', () => {
  const secret = generateWebhookSecret();

  it('generates whsec_ secrets with enough randomness', () => {
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.to.equal(secret);
  });
  it('signs t=<ts>,v1=<hex> over `${t}.${rawBody}` keyed with the whole secret', () => {
    const { createHmac } = require('node:crypto') as typeof import('node:crypto');
    const expected = createHmac('sha256', 'whsec_abc').update(`${now}.${body}`).digest('hex');
    expect(sign(['whsec_abc'], now, body)).to.equal(`t=${now},v1=${expected}`);
  });
  it('verifies and returns the parsed event (string and Buffer bodies)', () => {
    const header = sign([secret], now, body);
    expect(verifyWebhook({ rawBody: body, signatureHeader: header, secret, now }).id).to.equal('evt_1');
    expect(verifyWebhook({ rawBody: Buffer.from(body), signatureHeader: header, secret, now: new Date(now * 1000) }).type).to.equal('payment.captured');
  });
  it('accepts either v1 during a rotation', () => {
    const next = generateWebhookSecret();
    const header = sign([next, secret], now, body);
    expect(header.split(',v1=')).to.have.length(3);
    expect(verifyWebhook({ rawBody: body, signatureHeader: header, secret, now }).id).to.equal('evt_1');
    expect(verifyWebhook({ rawBody: body, signatureHeader: header, secret: next, now }).id).to.equal('evt_1');
  });
  it('rejects a tampered body', () => {
    const header = sign([secret], now, body);
    expect(codeOf(() => verifyWebhook({ rawBody: body.replace('pay_1', 'pay_2'), signatureHeader: header, secret, now }))).to.equal('signature_mismatch');
    expect(codeOf(() => verifyWebhook({ rawBody: JSON.stringify(JSON.parse(body), null, 1), signatureHeader: header, secret, now }))).to.equal('signature_mismatch');
  });
  it('rejects a wrong secret', () => {
    const header = sign([secret], now, body);
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: header, secret: generateWebhookSecret(), now }))).to.equal('signature_mismatch');
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: header, secret: secret.slice(6), now }))).to.equal('signature_mismatch');
  });
  it('rejects timestamps more than 300 seconds away, either side', () => {
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: sign([secret], now - 301, body), secret, now }))).to.equal('timestamp_out_of_tolerance');
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: sign([secret], now + 301, body), secret, now }))).to.equal('timestamp_out_of_tolerance');
    expect(verifyWebhook({ rawBody: body, signatureHeader: sign([secret], now - 300, body), secret, now }).id).to.equal('evt_1');
  });
  it('rejects a timestamp changed after signing', () => {
    const header = sign([secret], now, body).replace(`t=${now}`, `t=${now + 1}`);
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: header, secret, now }))).to.equal('signature_mismatch');
  });
  it('rejects missing and malformed headers', () => {
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: undefined, secret, now }))).to.equal('missing_signature');
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: 'v1=abc', secret, now }))).to.equal('malformed_signature');
    expect(codeOf(() => verifyWebhook({ rawBody: body, signatureHeader: `t=${now}`, secret, now }))).to.equal('malformed_signature');
    expect(parseSignatureHeader(`t=${now},v0=zz,v1=${'a'.repeat(64)}`).signatures).to.deep.equal(['a'.repeat(64)]);
  });
});
