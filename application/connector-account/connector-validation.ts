import { DomainError } from '../../domain/shared/domain-error';
import type { ConnectorDescription } from '../../domain/ports/connector-description';
import type { ConnectorAccountDeps } from './connector-account-deps';

/** The catalog entry for a slug a merchant wants an account of; unknown or coming-soon slugs are refused. */
export async function usableConnector(deps: ConnectorAccountDeps, slug: string, param: string): Promise<ConnectorDescription> {
  const description = await deps.catalog.find(slug);
  if (!description) throw new DomainError('validation_failed', `Unknown connector: ${slug}`, { param });
  if (!description.available) {
    throw new DomainError('connector_not_available', `The ${description.name} connector is not available yet.`, { param });
  }
  return description;
}

/** Validates credentials and config against the connector's schemas; one 422 listing every violation. */
export function assertMatchesSchemas(
  deps: ConnectorAccountDeps,
  description: ConnectorDescription,
  credentials: Record<string, string>,
  config: Record<string, unknown>,
): void {
  const details = [
    ...deps.validator.validate(description.credentialSchema, credentials, 'body.credentials'),
    ...deps.validator.validate(description.configSchema, config, 'body.config'),
  ];
  if (details.length > 0) {
    throw new DomainError('validation_failed', details[0]!.message, { param: details[0]!.param, details });
  }
}
