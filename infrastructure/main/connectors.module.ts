/**
 * The connectors capability: the catalog over the configured gRPC adapters (the core's), connector accounts with sealed
 * credentials, and the `connectorAccounts` directory (ConnectorAccountDirectory) later modules use for routing.
 * Needs flows' `connectorAccountUsage` (an account shows the published flows citing it, and may not be deleted then).
 */
import type { ConnectorAccountDeps } from '../../application/connector-account/connector-account-deps';
import { ConnectorAccountDirectoryService } from '../../application/connector-account/connector-account-directory';
import { CreateConnectorAccount } from '../../application/connector-account/create-connector-account';
import { DeleteConnectorAccount } from '../../application/connector-account/delete-connector-account';
import { ListConnectorCatalog } from '../../application/connector-account/list-connector-catalog';
import { GetConnectorAccount, ListConnectorAccounts } from '../../application/connector-account/read-connector-accounts';
import { UpdateConnectorAccount } from '../../application/connector-account/update-connector-account';
import { VerifyConnectorAccount, VerifyConnectorCredentials } from '../../application/connector-account/verify-connector-credentials';
import type { ConnectorAccountUsage, ConnectorCatalog } from '../../domain/ports/connector-catalog';
import { connectorRoutes } from '../../edge/routes/connector.routes';
import { AjvConnectorSchemaValidator } from '../connectors/ajv-connector-schema-validator';
import { AesGcmCredentialCipher, loadCredentialKeys } from '../crypto/aes-gcm-credential-cipher';
import { NodeSecureRandom } from '../crypto/node-secure-random';
import { checkGrpcHealth } from '../grpc/grpc-health.client';
import { CallHistoryWriter } from '../persistence/call-history-writer';
import { SqlConnectorAccountRepository } from '../persistence/connector-account.repository';
import type { Core } from './core';
import type { BuiltModule, ModuleDefinition } from './module';

/**
 * What connectors take from the modules built before them. Required, not optional: a type whose properties are all
 * optional would refuse every module list not providing one of them (TypeScript's weak-type check).
 */
export interface ConnectorsNeeds {
  readonly connectorAccountUsage: ConnectorAccountUsage;
}

/** What connectors give to the modules built after them. */
export interface ConnectorsServices {
  readonly connectorCatalog: ConnectorCatalog;
  /** Routing's view of the connector accounts (payments open accounts and record call outcomes through it). */
  readonly connectorAccounts: ConnectorAccountDirectoryService;
}

function credentialCipher(core: Core): AesGcmCredentialCipher {
  const { config } = core;
  return new AesGcmCredentialCipher(
    loadCredentialKeys({
      credentialsKey: config.credentialsKey,
      dataDir: config.dataDir,
      deployment: config.deployment,
      distributed: config.databaseUrl !== null,
    }),
  );
}

export const CONNECTORS_MODULE: ModuleDefinition<ConnectorsNeeds, ConnectorsServices> = {
  name: 'connectors',
  build(core: Core, needs: ConnectorsNeeds): BuiltModule<ConnectorsServices> {
    const { config } = core;
    const cipher = credentialCipher(core);
    // The core's catalog (its capabilities narrowed to what the core processes): flow publishing reads the same one.
    const catalog = core.connectorCatalog;
    const callHistory = new CallHistoryWriter(core.transactor, core.logger.child({ component: 'call-history' }));
    const deps: ConnectorAccountDeps = {
      transactor: core.transactor,
      accounts: new SqlConnectorAccountRepository(cipher, callHistory),
      catalog,
      validator: new AjvConnectorSchemaValidator(),
      clock: core.clock,
      ids: core.ids,
      random: new NodeSecureRandom(),
      deployment: config.deployment,
      publicBaseUrl: config.publicBaseUrl,
      usage: () => needs.connectorAccountUsage,
      changes: core.changes,
    };
    return {
      provides: { connectorCatalog: catalog, connectorAccounts: new ConnectorAccountDirectoryService(deps) },
      routes: connectorRoutes({
        catalog: new ListConnectorCatalog(catalog),
        create: new CreateConnectorAccount(deps),
        list: new ListConnectorAccounts(deps),
        get: new GetConnectorAccount(deps),
        update: new UpdateConnectorAccount(deps),
        remove: new DeleteConnectorAccount(deps),
        verifyCredentials: new VerifyConnectorCredentials(deps),
        verifyAccount: new VerifyConnectorAccount(deps),
      }),
      readinessChecks: core.adapters.map((adapter) => ({
        name: `connector:${adapter.slug}`,
        check: async () => (await checkGrpcHealth(adapter.address, '', 1_000)) === 'SERVING',
      })),
      async health() {
        const entries = await catalog.list();
        return {
          connectors: entries
            .filter((e) => e.available)
            .map((e) => ({ slug: e.slug, name: e.name, kind: e.kind, capabilities: [...e.capabilities] })),
        };
      },
      async stop() {
        // The calls of the last flush window are written before the database closes.
        await callHistory.stop();
      },
    };
  },
};
