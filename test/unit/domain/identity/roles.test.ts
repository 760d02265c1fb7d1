import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { hasScopes, isAccountAdmin, normalizeRequestedScopes, ROLES, SCOPES, scopesOfRole } from '../../../../domain/identity/roles';

describe('roles and scopes', () => {
  it('owner and administrator hold every scope', () => {
    expect(scopesOfRole('owner')).to.have.members([...SCOPES]);
    expect(scopesOfRole('administrator')).to.have.members([...SCOPES]);
  });

  it('developers operate the integration but cannot manage keys, security or billing', () => {
    const scopes = scopesOfRole('developer');
    expect(scopes).to.include.members(['payments:write', 'webhooks:write', 'connectors:write', 'flows:write', 'events:read']);
    expect(scopes).to.not.include.members(['api_keys:write']);
    for (const denied of ['api_keys:read', 'api_keys:write', 'security:read', 'security:write', 'billing:read', 'billing:write']) {
      expect(scopes).to.not.include(denied);
    }
  });

  it('analysts only read', () => {
    for (const scope of scopesOfRole('analyst')) expect(scope).to.match(/:read$/);
    expect(scopesOfRole('analyst')).to.not.include('security:read');
  });

  it('only owner and administrator are account admins', () => {
    expect(ROLES.filter(isAccountAdmin)).to.deep.equal(['owner', 'administrator']);
  });

  it('checks required scopes', () => {
    expect(hasScopes(['a', 'b'], ['a'])).to.equal(true);
    expect(hasScopes(['a'], ['a', 'b'])).to.equal(false);
  });

  it('API key scopes default to all and refuse unknown ones', () => {
    expect(normalizeRequestedScopes(undefined)).to.deep.equal([...SCOPES]);
    expect(normalizeRequestedScopes(['events:read', 'payments:read'])).to.deep.equal(['payments:read', 'events:read']);
    expect(() => normalizeRequestedScopes(['payments:delete'])).to.throw(DomainError).with.property('code', 'validation_failed');
    expect(() => normalizeRequestedScopes([])).to.throw(DomainError);
  });
});
