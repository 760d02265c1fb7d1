import type { PlanCatalog } from '../../domain/billing/plan-catalog';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { PlatformBillingRepository } from '../../domain/ports/platform-billing';
import type { Transactor } from '../../domain/ports/transactor';

/** What platform billing's use cases take: storage, time, the catalog loaded at start and the platform's zone. */
export interface BillingDeps {
  readonly transactor: Transactor;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly billing: PlatformBillingRepository;
  readonly catalog: PlanCatalog;
  /** IANA zone whose calendar months invoices follow (America/Sao_Paulo by default). */
  readonly timeZone: string;
}
