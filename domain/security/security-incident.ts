import { DomainError, InvalidStateError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { transition, type TransitionTable } from '../shared/state-machine';
import type { CardTestingSignal, SignalKind } from './card-testing';

/**
 * A suspected card-testing incident of one account and environment. It reports signals; it never states that
 * fraud happened. Status and block are separate on purpose: resolving the alert keeps the block, and only an
 * explicit unblock lets payments from the signal through again (spec, Security).
 */
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export const INCIDENT_ACTIONS = ['acknowledge', 'resolve', 'unblock', 'retry_email'] as const;
export type IncidentAction = (typeof INCIDENT_ACTIONS)[number];
export type EmailStatus = 'pending' | 'sent' | 'failed' | 'disabled';

export const INCIDENT_TRANSITIONS = {
  open: { acknowledge: 'acknowledged', resolve: 'resolved' },
  acknowledged: { resolve: 'resolved' },
  resolved: {},
} as const satisfies TransitionTable<IncidentStatus, 'acknowledge' | 'resolve'>;

export const REASON_MIN = 10;
export const REASON_MAX = 500;

export interface AuditEntry {
  readonly action: IncidentAction | 'opened';
  readonly reason: string;
  readonly actorUserId: string | null;
  readonly at: Date;
}

export interface SecurityIncident {
  readonly id: string;
  readonly organizationId: string;
  readonly environment: Environment;
  readonly type: 'card_testing';
  readonly status: IncidentStatus;
  readonly blocked: boolean;
  readonly signal: {
    readonly kind: SignalKind;
    readonly valueHash: string;
    readonly reason: CardTestingSignal['reason'];
    readonly declinedCount: number;
    readonly distinctCards: number;
    readonly firstSeenAt: Date;
    readonly lastSeenAt: Date;
  };
  readonly emailStatus: EmailStatus;
  readonly audit: readonly AuditEntry[];
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export function openIncident(params: {
  id: string;
  organizationId: string;
  environment: Environment;
  signal: CardTestingSignal;
  emailEnabled: boolean;
  now: Date;
}): SecurityIncident {
  return {
    id: params.id,
    organizationId: params.organizationId,
    environment: params.environment,
    type: 'card_testing',
    status: 'open',
    blocked: true,
    signal: { ...params.signal },
    emailStatus: params.emailEnabled ? 'pending' : 'disabled',
    audit: [{ action: 'opened', reason: `Suspected card testing: ${params.signal.reason}`, actorUserId: null, at: params.now }],
    createdAt: params.now,
    updatedAt: params.now,
  };
}

export function assertReason(reason: string): void {
  if (typeof reason !== 'string' || reason.trim().length < REASON_MIN || reason.length > REASON_MAX) {
    throw new DomainError('validation_failed', `reason must be ${REASON_MIN} to ${REASON_MAX} characters`, { param: 'body.reason' });
  }
}

/** Applies an admin action and records it, with its reason, in the incident's audit trail. */
export function applyIncidentAction(
  incident: SecurityIncident,
  action: IncidentAction,
  reason: string,
  actorUserId: string,
  now: Date,
): SecurityIncident {
  assertReason(reason);
  let next: SecurityIncident = incident;
  switch (action) {
    case 'acknowledge':
    case 'resolve':
      next = { ...incident, status: transition('security incident', INCIDENT_TRANSITIONS, incident.status, action) };
      break;
    case 'unblock':
      if (!incident.blocked) throw new InvalidStateError('security incident', 'unblocked', action);
      next = { ...incident, blocked: false };
      break;
    case 'retry_email':
      if (incident.emailStatus === 'sent') throw new InvalidStateError('security incident', 'email_sent', action);
      if (incident.emailStatus === 'disabled') {
        throw new DomainError('email_disabled', 'E-mail alerts are not configured for this installation');
      }
      next = { ...incident, emailStatus: 'pending' };
      break;
  }
  return { ...next, updatedAt: now, audit: [...incident.audit, { action, reason, actorUserId, at: now }] };
}

export function markEmail(incident: SecurityIncident, status: 'sent' | 'failed', now: Date): SecurityIncident {
  return { ...incident, emailStatus: status, updatedAt: now };
}
