import { expect } from 'chai';
import { loadConfig, ConfigError } from '../../../../infrastructure/config/config';

describe('METRICS_HOST and METRICS_PORT (contract.md 8)', () => {
  it('default to 127.0.0.1:9464; 0 turns the listener off', () => {
    expect(loadConfig({})).to.include({ metricsHost: '127.0.0.1', metricsPort: 9464 });
    expect(loadConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' })).to.include({ metricsHost: '0.0.0.0', metricsPort: 0 });
  });

  it('a port that is not one is refused with the variable named', () => {
    expect(() => loadConfig({ METRICS_PORT: '70000' })).to.throw(ConfigError, /METRICS_PORT must be a TCP port/);
    expect(() => loadConfig({ METRICS_PORT: 'abc' })).to.throw(ConfigError, /METRICS_PORT/);
  });
});
