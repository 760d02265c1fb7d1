import type { CardAttemptRepository, IncidentListQuery, ScopedCardAttempt, SecurityIncidentRepository } from '../../domain/ports/security-repositories';
import type { Transaction } from '../../domain/ports/transactor';
import type { CardAttempt } from '../../domain/security/card-testing';
import type { AuditEntry, SecurityIncident } from '../../domain/security/security-incident';
import type { Environment } from '../../domain/shared/environment';
import { entityManager } from './mikro-orm-transactor';

type Row = Record<string, unknown>;
const date = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const exec = (tx: Transaction, sql: string, params: unknown[] = []) => entityManager(tx).execute<Row[]>(sql, params);
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;

export class SqlCardAttemptRepository implements CardAttemptRepository {
  async lockScope(tx: Transaction, organizationId: string, environment: Environment): Promise<void> {
    await exec(tx, `select pg_advisory_xact_lock(hashtext(?))`, [`security:${organizationId}:${environment}`]);
  }

  async insert(tx: Transaction, a: ScopedCardAttempt): Promise<void> {
    await exec(
      tx,
      `insert into security_card_attempts (organization_id, environment, at, client_ip_hash, device_id_hash, card_fingerprint, declined)
       values (?, ?, ?, ?, ?, ?, ?)`,
      [a.organizationId, a.environment, a.at, a.clientIpHash, a.deviceIdHash, a.cardFingerprint, a.declined],
    );
  }

  async listRecent(
    tx: Transaction,
    organizationId: string,
    environment: Environment,
    signals: { clientIpHash: string | null; deviceIdHash: string | null },
    since: Date,
  ): Promise<CardAttempt[]> {
    const rows = await exec(
      tx,
      `select at, client_ip_hash, device_id_hash, card_fingerprint, declined from security_card_attempts
        where organization_id = ? and environment = ? and at > ?
          and (client_ip_hash = ? or device_id_hash = ?)
        order by at`,
      [organizationId, environment, since, signals.clientIpHash ?? '', signals.deviceIdHash ?? ''],
    );
    return rows.map((row) => ({
      at: date(row.at),
      clientIpHash: (row.client_ip_hash as string | null) ?? null,
      deviceIdHash: (row.device_id_hash as string | null) ?? null,
      cardFingerprint: (row.card_fingerprint as string | null) ?? null,
      declined: Boolean(row.declined),
    }));
  }
}

// Explicit, not `select *`: a column a migration adds must not change a prepared statement's result type.
const INCIDENT_COLUMNS = 'id, organization_id, environment, status, blocked, signal, email_status, audit, created_at, updated_at';

function toIncident(row: Row): SecurityIncident {
  const signal = json(row.signal);
  const audit = (typeof row.audit === 'string' ? JSON.parse(row.audit) : row.audit) as Array<Record<string, unknown>>;
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    environment: row.environment as Environment,
    type: 'card_testing',
    status: row.status as SecurityIncident['status'],
    blocked: Boolean(row.blocked),
    signal: {
      kind: signal.kind as SecurityIncident['signal']['kind'],
      valueHash: signal.valueHash as string,
      reason: signal.reason as SecurityIncident['signal']['reason'],
      declinedCount: Number(signal.declinedCount),
      distinctCards: Number(signal.distinctCards),
      firstSeenAt: date(signal.firstSeenAt),
      lastSeenAt: date(signal.lastSeenAt),
    },
    emailStatus: row.email_status as SecurityIncident['emailStatus'],
    audit: audit.map((e) => ({ ...(e as unknown as AuditEntry), at: date(e.at) })),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

export class SqlSecurityIncidentRepository implements SecurityIncidentRepository {
  async insert(tx: Transaction, i: SecurityIncident): Promise<void> {
    await exec(
      tx,
      `insert into security_incidents (id, organization_id, environment, type, status, blocked, signal_hash, signal, email_status, audit, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, ?)`,
      [i.id, i.organizationId, i.environment, i.type, i.status, i.blocked, i.signal.valueHash, JSON.stringify(i.signal), i.emailStatus,
        JSON.stringify(i.audit), i.createdAt, i.updatedAt],
    );
  }

  async update(tx: Transaction, i: SecurityIncident): Promise<void> {
    await exec(tx, `update security_incidents set status = ?, blocked = ?, email_status = ?, audit = ?::jsonb, updated_at = ? where id = ? and organization_id = ?`, [
      i.status, i.blocked, i.emailStatus, JSON.stringify(i.audit), i.updatedAt, i.id, i.organizationId,
    ]);
  }

  async findById(tx: Transaction, organizationId: string, environment: Environment, id: string, forUpdate?: boolean): Promise<SecurityIncident | null> {
    const rows = await exec(tx, `select ${INCIDENT_COLUMNS} from security_incidents where id = ? and organization_id = ? and environment = ?${forUpdate ? ' for update' : ''}`, [
      id, organizationId, environment,
    ]);
    return rows[0] ? toIncident(rows[0]) : null;
  }

  async list(tx: Transaction, organizationId: string, environment: Environment, query: IncidentListQuery): Promise<SecurityIncident[]> {
    const where = ['organization_id = ?', 'environment = ?'];
    const params: unknown[] = [organizationId, environment];
    if (query.status) {
      where.push('status = ?');
      params.push(query.status);
    }
    if (query.startingAfter) {
      where.push('id < ?');
      params.push(query.startingAfter);
    }
    params.push(query.limit);
    const rows = await exec(tx, `select ${INCIDENT_COLUMNS} from security_incidents where ${where.join(' and ')} order by id desc limit ?`, params);
    return rows.map(toIncident);
  }

  async findBlocking(tx: Transaction, organizationId: string, environment: Environment, valueHashes: readonly string[]): Promise<SecurityIncident[]> {
    if (valueHashes.length === 0) return [];
    const rows = await exec(
      tx,
      `select ${INCIDENT_COLUMNS} from security_incidents where organization_id = ? and environment = ? and blocked
         and signal_hash in (${valueHashes.map(() => '?').join(', ')}) order by id`,
      [organizationId, environment, ...valueHashes],
    );
    return rows.map(toIncident);
  }
}
