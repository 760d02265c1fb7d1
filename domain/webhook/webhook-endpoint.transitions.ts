import { transition, type TransitionTable } from '../shared/state-machine';

export const ENDPOINT_STATUSES = ['active', 'failing', 'disabled', 'auto_disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const ENDPOINT_TRIGGERS = [
  'attempt_succeeded',
  'attempt_failed',
  'auto_disable',
  'user_disable',
  'user_enable',
  'url_changed',
] as const;
export type EndpointTrigger = (typeof ENDPOINT_TRIGGERS)[number];

/**
 * Webhook endpoint status (spec: Webhook endpoint status). Switched-off endpoints keep their state when a late
 * attempt outcome arrives (an attempt already in flight when the user disabled it), hence the self-loops.
 * auto_disable is only reachable from failing because it needs 20 consecutive failures.
 * A URL change resets the failure count: a failing endpoint becomes active, a switched-off one stays off.
 */
export const ENDPOINT_TRANSITIONS = {
  active: {
    attempt_succeeded: 'active',
    attempt_failed: 'failing',
    user_disable: 'disabled',
    user_enable: 'active',
    url_changed: 'active',
  },
  failing: {
    attempt_succeeded: 'active',
    attempt_failed: 'failing',
    auto_disable: 'auto_disabled',
    user_disable: 'disabled',
    user_enable: 'active',
    url_changed: 'active',
  },
  disabled: {
    attempt_succeeded: 'disabled',
    attempt_failed: 'disabled',
    user_disable: 'disabled',
    user_enable: 'active',
    url_changed: 'disabled',
  },
  auto_disabled: {
    attempt_succeeded: 'auto_disabled',
    attempt_failed: 'auto_disabled',
    user_disable: 'disabled',
    user_enable: 'active',
    url_changed: 'auto_disabled',
  },
} as const satisfies TransitionTable<EndpointStatus, EndpointTrigger>;

export function nextEndpointStatus(state: EndpointStatus, trigger: EndpointTrigger): EndpointStatus {
  return transition<EndpointStatus, EndpointTrigger>('webhook endpoint', ENDPOINT_TRANSITIONS, state, trigger);
}

/** Statuses in which the service sends deliveries; tests and manual retries on the others answer 409. */
export function endpointReceives(status: EndpointStatus): boolean {
  return status === 'active' || status === 'failing';
}
