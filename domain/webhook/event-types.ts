/**
 * The catalog of event types a webhook endpoint can subscribe to, grouped by resource.
 * `emitted: false` marks types that are subscribable but never produced in this version (spec: Event types):
 * a subscription to them is accepted so integrations can be written ahead of time.
 * Group wildcards (`payment.*`) also cover types added to the group later (spec: Versioning 5).
 */
export interface EventTypeEntry {
  readonly type: string;
  readonly description: string;
  readonly emitted: boolean;
}

export interface EventTypeGroup {
  readonly resource: string;
  readonly wildcard: string;
  readonly description: string;
  readonly types: readonly EventTypeEntry[];
  /** A group whose wildcard itself is the only subscribable form (no concrete types emitted yet). */
  readonly wildcardOnly?: boolean;
}

export const ALL_EVENTS_WILDCARD = '*';
export const TEST_EVENT_TYPE = 'webhook_endpoint.test';
/** Audit record of a secret reveal: stored in the event log, never delivered to endpoints (see docs/webhooks.md). */
export const SECRET_REVEALED_EVENT_TYPE = 'webhook_endpoint.secret_revealed';

const e = (type: string, description: string, emitted = true): EventTypeEntry => ({ type, description, emitted });

export const EVENT_TYPE_GROUPS: readonly EventTypeGroup[] = [
  {
    resource: 'payment',
    wildcard: 'payment.*',
    description: 'Payments: authorization, capture, cancellation, refunds and checkout outcomes.',
    types: [
      e('payment.authorized', 'Payment authorized.'),
      e('payment.captured', 'Amount captured; confirms the sale.'),
      e('payment.voided', 'Authorization voided.'),
      e('payment.canceled', 'Payment canceled (Pix, boleto, checkout without a card, deadline).'),
      e('payment.failed', 'Declined and ended; carries the decline.'),
      e('payment.attempt_declined', 'Transparent checkout: reversible decline; the payment is back to requires_payment_method.'),
      e('payment.checkout_not_configured', 'Transparent checkout: connector account misconfigured and tokenization did not open.'),
      e('payment.refunded', 'Fully refunded.'),
      e('payment.partially_refunded', 'Partially refunded.'),
      e('payment.authorization_expiring', 'Pre-authorization near the end of its capture deadline.'),
      e('payment.fraud_review_resolved', 'Acquirer fraud review ended.'),
      e('payment.late_payment_received', 'Pix or boleto: the bank reports paid a charge of a payment already voided or expired; the status stays canceled, return or honour the money.'),
      e('payment.attempt.created', 'A payment attempt was created (subscribable, not emitted in this version).', false),
    ],
  },
  {
    resource: 'antifraud',
    wildcard: 'antifraud.*',
    description: 'Antifraud analyses.',
    types: [e('antifraud.assessment_completed', 'Antifraud analysis concluded.')],
  },
  {
    resource: 'payment_method',
    wildcard: 'payment_method.*',
    description: 'Saved payment methods.',
    types: [
      e('payment_method.verified', 'Card validated without charge (zero-value authorization).'),
      e('payment_method.expiring', 'A saved card is about to expire (subscribable, not emitted in this version).', false),
    ],
  },
  {
    resource: 'invoice',
    wildcard: 'invoice.*',
    description: 'Invoices of recurring charges.',
    types: [
      e('invoice.payment_failed', 'Invoice charge failed; carries the retry decision.'),
      e('invoice.finalized', 'Invoice finalized (subscribable, not emitted in this version).', false),
      e('invoice.uncollectible', 'Invoice marked uncollectible (subscribable, not emitted in this version).', false),
    ],
  },
  {
    resource: 'subscription',
    wildcard: 'subscription.*',
    description: 'Recurring charges.',
    types: [e('subscription.canceled_by_issuer', 'Issuer determined suspension; do not retry.')],
  },
  {
    resource: 'retry',
    wildcard: 'retry.*',
    description: 'Retry policies.',
    types: [e('retry.exhausted', 'Retry policy exhausted without approval.')],
  },
  {
    resource: 'recipient',
    wildcard: 'recipient.*',
    description: 'Split recipients.',
    types: [e('recipient.updated', 'Split recipient data changed.')],
  },
  {
    resource: 'flow',
    wildcard: 'flow.*',
    description: 'Flows.',
    types: [
      e('flow.notification', "Emitted by a flow's Notify webhook node."),
      e('flow.published', 'A flow version was published (subscribable, not emitted in this version).', false),
    ],
  },
  {
    resource: 'connector_account',
    wildcard: 'connector_account.*',
    description: 'Connector accounts.',
    types: [
      e('connector_account.health_changed', 'Connector account health changed (subscribable, not emitted in this version).', false),
    ],
  },
  {
    resource: 'dispute',
    wildcard: 'dispute.*',
    description: 'Disputes (subscribable, not emitted in this version).',
    types: [],
    wildcardOnly: true,
  },
  {
    resource: 'chargeback',
    wildcard: 'chargeback.*',
    description: 'Chargebacks.',
    types: [e('chargeback.received', 'A chargeback was received (subscribable, not emitted in this version).', false)],
  },
  {
    resource: 'payout',
    wildcard: 'payout.*',
    description: 'Payouts (subscribable, not emitted in this version).',
    types: [],
    wildcardOnly: true,
  },
  {
    resource: 'communication',
    wildcard: 'communication.*',
    description: 'Communications (subscribable, not emitted in this version).',
    types: [],
    wildcardOnly: true,
  },
];

export const TEST_EVENT_TYPE_ENTRY: EventTypeEntry = {
  type: TEST_EVENT_TYPE,
  description: 'Test event sent by POST /v1/webhooks/{id}/test to that endpoint only; not subscribable.',
  emitted: true,
};

const EXACT_TYPES = new Set(EVENT_TYPE_GROUPS.flatMap((g) => g.types.map((t) => t.type)));
const WILDCARDS = new Set(EVENT_TYPE_GROUPS.map((g) => g.wildcard));

/** True when `entry` is a catalog type, a group wildcard or `*`. The test type is not subscribable. */
export function isSubscribable(entry: string): boolean {
  return entry === ALL_EVENTS_WILDCARD || EXACT_TYPES.has(entry) || WILDCARDS.has(entry);
}

export function isKnownEventType(type: string): boolean {
  return EXACT_TYPES.has(type);
}

/** Does one subscription entry (exact, `group.*` or `*`) cover an event type? */
export function subscriptionCovers(entry: string, type: string): boolean {
  if (type === TEST_EVENT_TYPE || type === SECRET_REVEALED_EVENT_TYPE) return false;
  if (entry === ALL_EVENTS_WILDCARD) return true;
  if (entry.endsWith('.*')) return type.startsWith(entry.slice(0, -1));
  return entry === type;
}

/**
 * Does an endpoint subscribed to `enabledEvents` receive `type`? The test event never matches a
 * subscription (it is sent to the tested endpoint directly), nor does the secret-reveal audit record.
 */
export function matchesSubscription(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.some((entry) => subscriptionCovers(entry, type));
}

/** Filter semantics for queries (event log, deliveries): `type` exact, `group.*` or `*`. */
export function typeFilterMatches(filter: string, type: string): boolean {
  if (filter === ALL_EVENTS_WILDCARD) return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return filter === type;
}
