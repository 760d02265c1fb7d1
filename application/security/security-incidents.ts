import type { Clock } from '../../domain/ports/clock';
import type { IncidentListQuery, SecurityIncidentRepository } from '../../domain/ports/security-repositories';
import type { Transactor } from '../../domain/ports/transactor';
import { applyIncidentAction, type IncidentAction, type SecurityIncident } from '../../domain/security/security-incident';
import { NotFoundError } from '../../domain/shared/domain-error';
import type { Environment } from '../../domain/shared/environment';
import type { SecurityGuard } from './security-guard';

/** Listing incidents and the admin actions on them (acknowledge, resolve, unblock, retry_email). */
export class SecurityIncidents {
  constructor(
    private readonly transactor: Transactor,
    private readonly incidents: SecurityIncidentRepository,
    private readonly guard: SecurityGuard,
    private readonly clock: Clock,
  ) {}

  async list(organizationId: string, environment: Environment, query: IncidentListQuery): Promise<{ data: SecurityIncident[]; hasMore: boolean }> {
    const rows = await this.transactor.read((tx) => this.incidents.list(tx, organizationId, environment, { ...query, limit: query.limit + 1 }));
    return { data: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }

  async act(input: {
    organizationId: string;
    environment: Environment;
    incidentId: string;
    action: IncidentAction;
    reason: string;
    actorUserId: string;
  }): Promise<SecurityIncident> {
    const updated = await this.transactor.run(async (tx) => {
      const incident = await this.incidents.findById(tx, input.organizationId, input.environment, input.incidentId, true);
      if (!incident) throw new NotFoundError('security incident', input.incidentId);
      const next = applyIncidentAction(incident, input.action, input.reason, input.actorUserId, this.clock.now());
      await this.incidents.update(tx, next);
      return next;
    });
    if (input.action !== 'retry_email') return updated;
    await this.guard.sendAlert(updated);
    const reread = await this.transactor.read((tx) => this.incidents.findById(tx, input.organizationId, input.environment, input.incidentId));
    return reread ?? updated;
  }
}
