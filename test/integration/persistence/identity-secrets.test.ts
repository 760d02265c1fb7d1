import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AesGcmCredentialCipher } from '../../../infrastructure/crypto/aes-gcm-credential-cipher';
import { installationSecret } from '../../../infrastructure/persistence/identity-secrets';
import { MikroOrmTransactor } from '../../../infrastructure/persistence/mikro-orm-transactor';
import { migrate, openOrm, type Orm } from '../../../infrastructure/persistence/orm';
import { createTestDatabase } from '../../support/test-infrastructure';

/**
 * Installation secrets are named: one name is one value for every process (generated once, kept), and each name
 * has its own, so the pseudonymization key does not follow the session secret.
 */
describe('installation secrets: one value per name, kept (PostgreSQL)', () => {
  let orm: Orm;
  const cipher = new AesGcmCredentialCipher([randomBytes(32)]);

  before(async () => {
    orm = await openOrm(await createTestDatabase(), 2);
    await migrate(orm, { cipher });
  });
  after(() => orm?.close(true));

  it('the same name returns the same value, another name another value, also concurrently and from another connection', async () => {
    const transactor = new MikroOrmTransactor(orm);
    const [session, pseudonymization, pseudonymizationAgain] = await Promise.all([
      installationSecret(transactor, 'session', cipher),
      installationSecret(transactor, 'pseudonymization', cipher),
      installationSecret(transactor, 'pseudonymization', cipher),
    ]);
    expect(pseudonymizationAgain).to.equal(pseudonymization);
    expect(pseudonymization).not.to.equal(session);
    expect(pseudonymization).to.have.length.of.at.least(48);

    const other = await openOrm(orm.config.get('clientUrl')!, 1);
    try {
      const elsewhere = new MikroOrmTransactor(other);
      expect(await installationSecret(elsewhere, 'pseudonymization', cipher)).to.equal(pseudonymization);
      expect(await installationSecret(elsewhere, 'session', cipher)).to.equal(session);
    } finally {
      await other.close(true);
    }
  });
});
