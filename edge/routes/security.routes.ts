import type { SecurityGuard } from '../../application/security/security-guard';
import type { SecurityIncidents } from '../../application/security/security-incidents';
import { INCIDENT_ACTIONS, INCIDENT_STATUSES, type SecurityIncident } from '../../domain/security/security-incident';
import { PAGE_QUERY_PROPERTIES } from '../http/pagination';
import { defineRoute, type RouteDefinition } from '../http/route';
import { requireAccountAdmin } from './session.authenticator';
import { bool, dateTime, int, listOf, nullable, objectName, record, str } from '../http/response-schemas';
import type { JsonSchema } from '../http/validation';

const TAG = 'Security';

const signalKind: JsonSchema = { type: 'string', enum: ['client_ip', 'device_id'] };

const policyResponse: JsonSchema = record({
  object: objectName('security_policy'),
  organizationId: str,
  managedBy: { type: 'string', enum: ['platform'] },
  appliesPerAccount: bool,
  cardTesting: record({
    enabled: bool,
    windowSeconds: int,
    declinedThreshold: { type: 'integer', description: 'Declined card payments sharing one clientIp or deviceId inside the window' },
    distinctCardsThreshold: { type: 'integer', description: 'Distinct cards tried from one clientIp or deviceId inside the window' },
    signals: { type: 'array', items: signalKind },
    action: { type: 'string', enum: ['block'] },
  }),
  limits: record({ maxPaymentAmount: int, cardAttemptsPerCheckoutPayment: int }),
  alerts: record({ emailOnIncident: bool }),
});

const incidentResponse: JsonSchema = record({
  object: objectName('security_incident'),
  id: str,
  type: { type: 'string', enum: ['card_testing'] },
  environment: { type: 'string', enum: ['sandbox', 'live'] },
  status: { type: 'string', enum: [...INCIDENT_STATUSES] },
  blocked: bool,
  confirmedFraud: { type: 'boolean', enum: [false], description: 'A signal is a suspicion, never a finding' },
  signal: record({
    kind: signalKind,
    pseudonym: { type: 'string', description: 'Keyed hash of the address or device id (never the value itself)' },
    reason: { type: 'string', enum: ['declined_threshold', 'distinct_cards_threshold'] },
    declinedCount: int,
    distinctCards: int,
    firstSeenAt: dateTime,
    lastSeenAt: dateTime,
  }),
  emailStatus: { type: 'string', enum: ['pending', 'sent', 'failed', 'disabled'] },
  auditTrail: {
    type: 'array',
    items: record({ action: { type: 'string', enum: ['opened', ...INCIDENT_ACTIONS] }, reason: str, actorUserId: nullable(str), at: dateTime }),
  },
  createdAt: dateTime,
  updatedAt: dateTime,
});

export function incidentView(incident: SecurityIncident) {
  return {
    object: 'security_incident',
    id: incident.id,
    type: incident.type,
    environment: incident.environment,
    status: incident.status,
    blocked: incident.blocked,
    // A signal is a suspicion, never a finding: the spec forbids presenting it as confirmed fraud.
    confirmedFraud: false,
    signal: {
      kind: incident.signal.kind,
      pseudonym: incident.signal.valueHash,
      reason: incident.signal.reason,
      declinedCount: incident.signal.declinedCount,
      distinctCards: incident.signal.distinctCards,
      firstSeenAt: incident.signal.firstSeenAt.toISOString(),
      lastSeenAt: incident.signal.lastSeenAt.toISOString(),
    },
    emailStatus: incident.emailStatus,
    auditTrail: incident.audit.map((entry) => ({
      action: entry.action,
      reason: entry.reason,
      actorUserId: entry.actorUserId,
      at: entry.at.toISOString(),
    })),
    createdAt: incident.createdAt.toISOString(),
    updatedAt: incident.updatedAt.toISOString(),
  };
}

export function securityRoutes(deps: { guard: SecurityGuard; incidents: SecurityIncidents }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/security/policy', operationId: 'getSecurityPolicy', tag: TAG, auth: 'session', scopes: ['security:read'], successStatus: 200,
      summary: "The account's transaction protection (set by the platform team, applied per account)", response: policyResponse,
      handler: async ({ principal }) => {
        const session = requireAccountAdmin(principal);
        const policy = deps.guard.policy(session.organizationId);
        return {
          body: {
            object: 'security_policy',
            organizationId: session.organizationId,
            managedBy: 'platform',
            appliesPerAccount: true,
            cardTesting: {
              enabled: policy.cardTesting.enabled,
              windowSeconds: policy.cardTesting.windowSeconds,
              declinedThreshold: policy.cardTesting.declinedThreshold,
              distinctCardsThreshold: policy.cardTesting.distinctCardsThreshold,
              signals: ['client_ip', 'device_id'],
              action: policy.cardTesting.action,
            },
            limits: { ...policy.limits },
            alerts: { ...policy.alerts },
          },
        };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/security/incidents', operationId: 'listSecurityIncidents', tag: TAG, auth: 'merchant', scopes: ['security:read'], successStatus: 200,
      summary: 'Pseudonymized signals and suspected card testing of the account and environment', response: listOf(incidentResponse),
      query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES, status: { type: 'string', enum: [...INCIDENT_STATUSES] } } },
      handler: async ({ principal, query }) => {
        const page = await deps.incidents.list(principal!.organizationId, principal!.environment, {
          limit: query.limit ?? 25,
          startingAfter: query.startingAfter,
          status: query.status,
        });
        return { body: { object: 'list', data: page.data.map(incidentView), hasMore: page.hasMore } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/security/incidents/:id/actions', operationId: 'actOnSecurityIncident', tag: TAG, auth: 'session', scopes: ['security:write'], successStatus: 201,
      summary: 'acknowledge, resolve, unblock or retry_email, with a reason kept in the audit trail (owner or administrator)',
      response: incidentResponse,
      body: {
        type: 'object',
        required: ['action', 'reason'],
        properties: { action: { type: 'string', enum: [...INCIDENT_ACTIONS] }, reason: { type: 'string', minLength: 10, maxLength: 500 } },
      },
      handler: async ({ principal, params, body }) => {
        const session = requireAccountAdmin(principal);
        const incident = await deps.incidents.act({
          organizationId: session.organizationId,
          environment: principal!.environment,
          incidentId: params.id!,
          action: body.action,
          reason: body.reason,
          actorUserId: session.userId,
        });
        return { body: incidentView(incident) };
      },
    }),
  ];
}
