import type { ChangeFeed } from '../../domain/ports/change-feed';
import type { Clock } from '../../domain/ports/clock';
import type { ConnectorCapabilities } from '../../domain/ports/connector-capabilities';
import type { FlowRepository } from '../../domain/ports/flow-repository';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { RecipientRepository } from '../../domain/ports/recipient-repository';
import type { Transactor } from '../../domain/ports/transactor';

/** Everything the flow use cases need, as ports. */
export interface FlowDeps {
  readonly transactor: Transactor;
  readonly flows: FlowRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** When given, routing keeps each environment's flow in force in memory until a flow of it changes. */
  readonly changes?: ChangeFeed;
  /** The environment's split recipients, which a split node names; without them a flow with split nodes is not published. */
  readonly recipients?: Pick<RecipientRepository, 'existingIds'>;
  /**
   * What each connector can do (its adapter's Describe), which publishing checks the nodes' accounts against; without
   * it, or for a connector whose adapter cannot be described, capabilities are unknown and not checked.
   */
  readonly capabilities?: ConnectorCapabilities;
}
