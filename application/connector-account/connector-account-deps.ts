import type { ChangeFeed } from '../../domain/ports/change-feed';
import type { Clock } from '../../domain/ports/clock';
import type { ConnectorAccountRepository } from '../../domain/ports/connector-account-repository';
import type { ConnectorAccountUsage, ConnectorCatalog, ConnectorSchemaValidator } from '../../domain/ports/connector-catalog';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { SecureRandom } from '../../domain/ports/secure-random';
import type { Transactor } from '../../domain/ports/transactor';

/** Everything the connector-account use cases need, as ports and settings. */
export interface ConnectorAccountDeps {
  readonly transactor: Transactor;
  readonly accounts: ConnectorAccountRepository;
  readonly catalog: ConnectorCatalog;
  readonly validator: ConnectorSchemaValidator;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: SecureRandom;
  /** `local` allows sandbox connectors in live (contract.md 5). */
  readonly deployment: 'local' | 'production';
  /** Base of webhookUrl (e.g. https://api.example.com). */
  readonly publicBaseUrl: string;
  /** Published flows citing an account; absent until the flows capability provides it. */
  readonly usage: () => ConnectorAccountUsage | undefined;
  /** When given, routing keeps each environment's accounts in memory until one of them changes. */
  readonly changes?: ChangeFeed;
}
