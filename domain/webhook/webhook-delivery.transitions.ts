import { transition, type TransitionTable } from '../shared/state-machine';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'exhausted', 'disabled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_TRIGGERS = ['attempt_succeeded', 'attempt_failed', 'attempts_exhausted', 'endpoint_switched_off', 'manual_retry'] as const;
export type DeliveryTrigger = (typeof DELIVERY_TRIGGERS)[number];

/**
 * Webhook delivery status (spec: Webhook delivery status). attempts_exhausted is the failure of the last
 * allowed attempt (the retry policy decides which one that is). A manual retry is allowed from every state,
 * including succeeded, and resets the attempts (the aggregate does the reset).
 */
export const DELIVERY_TRANSITIONS = {
  pending: {
    attempt_succeeded: 'succeeded',
    attempt_failed: 'failed',
    attempts_exhausted: 'exhausted',
    endpoint_switched_off: 'disabled',
    manual_retry: 'pending',
  },
  failed: {
    attempt_succeeded: 'succeeded',
    attempt_failed: 'failed',
    attempts_exhausted: 'exhausted',
    endpoint_switched_off: 'disabled',
    manual_retry: 'pending',
  },
  succeeded: { manual_retry: 'pending' },
  exhausted: { manual_retry: 'pending' },
  disabled: { manual_retry: 'pending' },
} as const satisfies TransitionTable<DeliveryStatus, DeliveryTrigger>;

export function nextDeliveryStatus(state: DeliveryStatus, trigger: DeliveryTrigger): DeliveryStatus {
  return transition<DeliveryStatus, DeliveryTrigger>('webhook delivery', DELIVERY_TRANSITIONS, state, trigger);
}

/** Queued = still expecting an attempt; these are what disabling or removing an endpoint cancels. */
export const QUEUED_DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'failed'];
