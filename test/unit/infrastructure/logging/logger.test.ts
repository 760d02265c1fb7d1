import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../../../infrastructure/logging/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(chunk.toString()); done(); } });
  return { lines, logger: createLogger('info', stream) };
}

describe('JSON logs', () => {
  it('writes JSON lines carrying the request id of a child logger', () => {
    const { lines, logger } = capture();
    logger.child({ requestId: 'req_1' }).info({ path: '/v1/x' }, 'request');
    const line = JSON.parse(lines[0]);
    expect(line).to.include({ requestId: 'req_1', path: '/v1/x', msg: 'request', level: 'info' });
  });

  it('redacts secrets wherever they are logged', () => {
    const { lines, logger } = capture();
    logger.info({
      authorization: 'Bearer sk_live_abc',
      body: { password: 'hunter2hunter2', credentials: { apiKey: 'k' }, secret: 'whsec_x', refreshToken: 'r', mfaCode: '123456' },
      headers: { authorization: 'Bearer sk_sandbox_zzz' },
    }, 'sensitive');
    expect(lines[0]).not.to.match(/sk_live_abc|hunter2|whsec_x|sk_sandbox_zzz|"k"|123456/);
    expect(lines[0]).to.contain('[redacted]');
  });
});
