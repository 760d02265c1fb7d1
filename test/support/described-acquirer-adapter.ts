/**
 * A test acquirer adapter that says of itself what a test needs (Describe: its slug and capabilities) and does nothing
 * else: VerifyCredentials answers valid, every other RPC UNIMPLEMENTED. Enough for what reads only Describe, such as
 * the catalog, connector accounts and flow publishing. A real gRPC server on a free loopback port (startGrpcServer).
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { AcquirerConnectorService, VerifyCredentialsResponse_Result, type AcquirerConnectorServer } from '../../infrastructure/grpc/generated/connector/v1/connector';
import { startGrpcServer, unaryHandler, type RunningGrpcServer } from '../../infrastructure/grpc/grpc-server';
import { SANDBOX_CONFIG_SCHEMA, SANDBOX_CREDENTIAL_SCHEMA } from '../../infrastructure/connectors/sandbox/scenarios';

export async function startDescribedAcquirer(slug: string, capabilities: readonly string[]): Promise<RunningGrpcServer> {
  const implementation: Pick<AcquirerConnectorServer, 'describe' | 'verifyCredentials'> = {
    describe: unaryHandler(async () => ({
      slug,
      name: `Test acquirer ${slug}`,
      kind: 'acquirer',
      capabilities: [...capabilities],
      credentialSchemaJson: JSON.stringify(SANDBOX_CREDENTIAL_SCHEMA),
      configSchemaJson: JSON.stringify(SANDBOX_CONFIG_SCHEMA),
      available: true,
    })),
    verifyCredentials: unaryHandler(async () => ({ result: VerifyCredentialsResponse_Result.VALID, message: 'Credentials accepted' })),
  };
  // grpc-js answers UNIMPLEMENTED for the methods left out.
  return startGrpcServer({ services: [{ definition: AcquirerConnectorService, implementation: implementation as unknown as UntypedServiceImplementation }] });
}
