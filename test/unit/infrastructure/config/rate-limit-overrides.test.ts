import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../../infrastructure/config/config';
import { parseRateLimitOverrides } from '../../../../infrastructure/config/rate-limit-overrides';
import { AUTH_LIMIT_NAMES, DEFAULT_AUTH_LIMITS } from '../../../../edge/routes/auth.limits';

describe('RATE_LIMITS and TRUSTED_PROXIES settings', () => {
  it('reads name=count/window overrides with windows in s, m, h or d', () => {
    expect(parseRateLimitOverrides(' auth.register.address=20/15m, auth.login.account=3/1h,auth.refresh.address=7/90s,auth.mfa.verify.account=1/1d ')).to.deep.equal({
      'auth.register.address': { points: 20, windowSeconds: 900 },
      'auth.login.account': { points: 3, windowSeconds: 3600 },
      'auth.refresh.address': { points: 7, windowSeconds: 90 },
      'auth.mfa.verify.account': { points: 1, windowSeconds: 86_400 },
    });
    expect(parseRateLimitOverrides(undefined)).to.deep.equal({});
    expect(parseRateLimitOverrides('')).to.deep.equal({});
  });

  it('refuses a malformed entry, an unknown or repeated name and a zero count or window, in one sentence', () => {
    const cases: Array<[string, string]> = [
      ['auth.register.address=20', 'must be name=count/window'],
      ['auth.register.address=20/15', 'must be name=count/window'],
      ['auth.register.address=-1/15m', 'must be name=count/window'],
      ['auth.register.address=20/15w', 'must be name=count/window'],
      ['auth-register-ip=20/15m', 'must be name=count/window'],
      ['auth.register.adress=20/15m', 'names "auth.register.adress", which is not a limit listed in docs/auth.md'],
      ['payments.create=20/15m', 'is not a limit listed'],
      ['auth.login.address=5/1m,auth.login.address=6/1m', 'sets "auth.login.address" twice'],
      ['auth.login.address=0/1m', 'needs a count and a window of at least 1'],
      ['auth.login.address=5/0s', 'needs a count and a window of at least 1'],
    ];
    for (const [raw, message] of cases) expect(() => parseRateLimitOverrides(raw), raw).to.throw(message);
  });

  it('start-up refuses a bad RATE_LIMITS or TRUSTED_PROXIES with a ConfigError naming the variable', () => {
    expect(() => loadConfig({ RATE_LIMITS: 'auth.login.address=lots' })).to.throw(ConfigError, /^RATE_LIMITS entry "auth.login.address=lots"/);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, proxy.local' })).to.throw(ConfigError, 'TRUSTED_PROXIES entry "proxy.local" is not an IPv4 or IPv6 CIDR');
  });

  it('defaults to no trusted proxy and no override; reads both', () => {
    expect(loadConfig({})).to.deep.include({ trustedProxies: [], rateLimits: {} });
    const config = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8', RATE_LIMITS: 'auth.register.address=2/1m' });
    expect(config.trustedProxies).to.deep.equal(['10.0.0.0/8', 'fd00::/8']);
    expect(config.rateLimits).to.deep.equal({ 'auth.register.address': { points: 2, windowSeconds: 60 } });
  });

  it('every limit name is dotted as the docs spell them', () => {
    for (const name of AUTH_LIMIT_NAMES) expect(name).to.match(/^auth\.[a-z_]+(\.[a-z_]+)*$/);
    expect(DEFAULT_AUTH_LIMITS['auth.register.address']).to.deep.equal({ points: 20, windowSeconds: 900 });
  });
});
