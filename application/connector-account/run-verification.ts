import type { ConnectorCredentials, VerifyCredentialsOutput } from '../../domain/ports/connector-description';
import { isConnectorFailure } from '../../domain/shared/connector-failure';
import type { ConnectorAccountDeps } from './connector-account-deps';

/**
 * One verification call at the partner. Never throws for the partner's sake: an adapter that fails or times
 * out means the partner could not be contacted, which is the `unreachable` answer (spec: verification never
 * errors on bad credentials). Must not run inside a database transaction.
 */
export async function runVerification(
  deps: ConnectorAccountDeps,
  slug: string,
  credentials: ConnectorCredentials,
): Promise<VerifyCredentialsOutput & { verifiedAt: Date }> {
  try {
    const output = await deps.catalog.verify(slug, { credentials });
    return { ...output, verifiedAt: deps.clock.now() };
  } catch (error) {
    if (!isConnectorFailure(error)) throw error;
    return {
      result: 'unreachable',
      message: error.kind === 'timeout' ? 'The connector did not answer in time' : 'The connector could not be contacted',
      verifiedAt: deps.clock.now(),
    };
  }
}
