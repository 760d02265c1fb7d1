import { expect } from 'chai';
import { ConfigError, loadConfig, usePreparedStatements } from '../../../../infrastructure/config/config';

describe('configuration from the environment', () => {
  it('defaults to embedded, local mode with the spec values', () => {
    const config = loadConfig({});
    expect(config.port).to.equal(8080);
    expect(config.databaseUrl).to.equal(null);
    expect(config.natsUrl).to.equal(null);
    expect(config.deployment).to.equal('local');
    expect(config.webhookTimeoutMs).to.equal(10_000);
    expect(config.webhookRetryScheduleSeconds).to.deep.equal([30, 120, 600, 3600, 21600, 86400]);
    expect(config.sandboxFraudReviewDelayMs).to.equal(5_000);
    expect(config.smtpUrl).to.equal(null);
    expect(config.authEmailEnabled).to.equal(false);
    expect(config.databasePoolSize).to.equal(1);
    expect(config.natsAckWaitMs).to.equal(30_000);
  });

  it('reads every variable and enables e-mail by default when SMTP_URL is set', () => {
    const config = loadConfig({
      PORT: '9000', DATABASE_URL: 'postgres://db/x', NATS_URL: 'nats://n:4222', DEPLOYMENT: 'production',
      WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_RETRY_SCHEDULE: '1,2,3,4,5,6', SANDBOX_FRAUD_REVIEW_DELAY_MS: '10',
      SMTP_URL: 'smtp://mail:25', CONNECTOR_ADAPTERS: 'sandbox=127.0.0.1:50051, sandbox-antifraud=127.0.0.1:50052',
    });
    expect(config).to.include({ port: 9000, databaseUrl: 'postgres://db/x', natsUrl: 'nats://n:4222', deployment: 'production', webhookTimeoutMs: 500, sandboxFraudReviewDelayMs: 10, smtpUrl: 'smtp://mail:25', authEmailEnabled: true, databasePoolSize: 10 });
    expect(config.webhookRetryScheduleSeconds).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(config.connectorAdapters).to.deep.equal([{ slug: 'sandbox', address: '127.0.0.1:50051' }, { slug: 'sandbox-antifraud', address: '127.0.0.1:50052' }]);
    expect(loadConfig({ SMTP_URL: 'smtp://mail:25', AUTH_EMAIL_ENABLED: 'false' }).authEmailEnabled).to.equal(false);
    expect(loadConfig({ CORE_NOTIFICATIONS_PORT: '50070', PAYMENT_RECOVERY_GRACE_MS: '12000' })).to.include({ coreNotificationsPort: 50070, paymentRecoveryGraceMs: 12000 });
    expect(loadConfig({ NATS_ACK_WAIT_MS: '2000' }).natsAckWaitMs).to.equal(2_000);
  });

  it('prepares statements on PostgreSQL unless switched off, and never on the embedded database', () => {
    expect(usePreparedStatements(loadConfig({ DATABASE_URL: 'postgres://db/x' }))).to.equal(true);
    expect(usePreparedStatements(loadConfig({ DATABASE_URL: 'postgres://db/x', DATABASE_PREPARED_STATEMENTS: 'false' }))).to.equal(false);
    expect(usePreparedStatements(loadConfig({}))).to.equal(false);
  });

  it('batched reads wait 2 ms for companions on the embedded database, none on PostgreSQL, unless set', () => {
    expect(loadConfig({}).databaseReadBatchWindowMs).to.equal(2);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).databaseReadBatchWindowMs).to.equal(0);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', DATABASE_READ_BATCH_WINDOW_MS: '3' }).databaseReadBatchWindowMs).to.equal(3);
    expect(() => loadConfig({ DATABASE_READ_BATCH_WINDOW_MS: '-1' })).to.throw(ConfigError, 'DATABASE_READ_BATCH_WINDOW_MS');
  });

  it('takes a pino level for LOG_LEVEL (any case) and refuses any other with one sentence listing the levels', () => {
    expect(loadConfig({}).logLevel).to.equal('info');
    expect(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel).to.equal('debug');
    expect(loadConfig({ LOG_LEVEL: 'silent' }).logLevel).to.equal('silent');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).to.throw(ConfigError, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"');
  });

  it('refuses values it cannot use, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ DEPLOYMENT: 'staging' })).to.throw(ConfigError, /DEPLOYMENT/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,2' })).to.throw(ConfigError, /WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ CONNECTOR_ADAPTERS: 'sandbox' })).to.throw(ConfigError, /CONNECTOR_ADAPTERS/);
  });
});
