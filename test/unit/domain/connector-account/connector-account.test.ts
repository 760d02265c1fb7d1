import { expect } from 'chai';
import { ConnectorAccount, assertConnectorAllowed, isSandboxConnector } from '../../../../domain/connector-account/connector-account';
import { DomainError } from '../../../../domain/shared/domain-error';

const now = new Date('2026-11-22T10:00:00.000Z');
const account = () =>
  ConnectorAccount.create({
    id: 'ca_1',
    scope: { organizationId: 'org_1', environment: 'sandbox' },
    connectorSlug: 'sandbox',
    kind: 'acquirer',
    name: 'Main',
    credentials: { merchantId: 'm', apiKey: 'k' },
    config: { softDescriptor: 'SHOP' },
    costBasisPoints: 120,
    enabled: true,
    webhookToken: 'tok',
    now,
  });

describe('connector account aggregate', () => {
  it('allows sandbox connectors in live only on a local deployment (contract.md 5)', () => {
    expect(isSandboxConnector('sandbox')).to.equal(true);
    expect(isSandboxConnector('sandbox-antifraud')).to.equal(true);
    expect(isSandboxConnector('cielo')).to.equal(false);
    expect(() => assertConnectorAllowed('sandbox', 'live', 'local')).to.not.throw();
    expect(() => assertConnectorAllowed('sandbox', 'sandbox', 'production')).to.not.throw();
    expect(() => assertConnectorAllowed('cielo', 'live', 'production')).to.not.throw();
    expect(() => assertConnectorAllowed('sandbox-antifraud', 'live', 'production'))
      .to.throw(DomainError)
      .with.property('code', 'connector_not_allowed_in_environment');
  });

  it('applies a PATCH and reports whether a credential changed', () => {
    const a = account();
    const later = new Date('2026-11-22T11:00:00.000Z');
    expect(a.apply({ name: 'Renamed', credentials: { apiKey: '' }, costBasisPoints: null }, later)).to.deep.equal({ credentialsChanged: false });
    expect(a.state).to.include({ name: 'Renamed', costBasisPoints: null, updatedAt: later });
    expect(a.apply({ credentials: { apiKey: 'k2' }, config: { softDescriptor: null } }, later)).to.deep.equal({ credentialsChanged: true });
    expect(a.state.credentials).to.deep.equal({ merchantId: 'm', apiKey: 'k2' });
    expect(a.state.config).to.deep.equal({});
  });

  it('previews a PATCH without applying it', () => {
    const a = account();
    const preview = a.preview({ credentials: { apiKey: 'new' } });
    expect(preview.credentials.apiKey).to.equal('new');
    expect(a.state.credentials.apiKey).to.equal('k');
  });

  it('refuses a cost outside 0-10000 basis points', () => {
    expect(() => account().apply({ costBasisPoints: 10_001 }, now)).to.throw(DomainError);
    expect(() => account().apply({ costBasisPoints: -1 }, now)).to.throw(DomainError);
  });

  it('a deleted account is disabled and refuses changes', () => {
    const a = account();
    a.markDeleted(now);
    expect(a.state.enabled).to.equal(false);
    expect(() => a.apply({ name: 'x' }, now)).to.throw(DomainError);
  });
});
