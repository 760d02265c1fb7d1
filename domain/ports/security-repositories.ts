import type { CardAttempt } from '../security/card-testing';
import type { IncidentStatus, SecurityIncident } from '../security/security-incident';
import type { Environment } from '../shared/environment';
import type { Transaction } from './transactor';

export interface ScopedCardAttempt extends CardAttempt {
  readonly organizationId: string;
  readonly environment: Environment;
}

/** Recent card attempts (pseudonymized signals only), kept for the detection window. */
export interface CardAttemptRepository {
  /** Serializes detection per account and environment so two outcomes cannot open the same incident twice. */
  lockScope(tx: Transaction, organizationId: string, environment: Environment): Promise<void>;
  insert(tx: Transaction, attempt: ScopedCardAttempt): Promise<void>;
  /** Attempts since `since` that share the client IP hash or the device hash given. */
  listRecent(
    tx: Transaction,
    organizationId: string,
    environment: Environment,
    signals: { clientIpHash: string | null; deviceIdHash: string | null },
    since: Date,
  ): Promise<CardAttempt[]>;
}

export interface IncidentListQuery {
  readonly limit: number;
  readonly startingAfter?: string;
  readonly status?: IncidentStatus;
}

/** Security incidents, always scoped by organization and environment. */
export interface SecurityIncidentRepository {
  insert(tx: Transaction, incident: SecurityIncident): Promise<void>;
  update(tx: Transaction, incident: SecurityIncident): Promise<void>;
  findById(tx: Transaction, organizationId: string, environment: Environment, id: string, forUpdate?: boolean): Promise<SecurityIncident | null>;
  list(tx: Transaction, organizationId: string, environment: Environment, query: IncidentListQuery): Promise<SecurityIncident[]>;
  /** Incidents still blocking any of the given signal hashes. */
  findBlocking(tx: Transaction, organizationId: string, environment: Environment, valueHashes: readonly string[]): Promise<SecurityIncident[]>;
}
