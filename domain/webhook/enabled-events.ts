import { DomainError } from '../shared/domain-error';
import { ALL_EVENTS_WILDCARD, TEST_EVENT_TYPE, isSubscribable, subscriptionCovers } from './event-types';

export const MAX_ENABLED_EVENTS = 100;
export const MAX_EVENT_TYPE_LENGTH = 100;

/**
 * Normalizes a subscription list (spec: Events, Subscriptions): 1-100 entries of 1-100 characters, each a
 * catalog type, a group wildcard or `*`; webhook_endpoint.test refused; `*` replaces every other entry;
 * entries covered by a wildcard of the list are dropped; duplicates collapse; the order given is kept.
 */
export function normalizeEnabledEvents(input: readonly string[], param = 'body.enabledEvents'): string[] {
  if (!Array.isArray(input) || input.length < 1 || input.length > MAX_ENABLED_EVENTS) {
    throw new DomainError('validation_failed', `enabledEvents must hold 1 to ${MAX_ENABLED_EVENTS} entries.`, { param });
  }
  input.forEach((entry, i) => {
    const at = `${param}[${i}]`;
    if (typeof entry !== 'string' || entry.length < 1 || entry.length > MAX_EVENT_TYPE_LENGTH) {
      throw new DomainError('validation_failed', `Each enabledEvents entry must be 1 to ${MAX_EVENT_TYPE_LENGTH} characters.`, { param: at });
    }
    if (entry === TEST_EVENT_TYPE) {
      throw new DomainError('event_type_not_subscribable', `${TEST_EVENT_TYPE} cannot be subscribed; use POST /v1/webhooks/{id}/test.`, { param: at });
    }
    if (!isSubscribable(entry)) {
      throw new DomainError('unknown_event_type', `Unknown event type: ${entry}. See GET /v1/webhooks/event-types.`, { param: at });
    }
  });
  if (input.includes(ALL_EVENTS_WILDCARD)) return [ALL_EVENTS_WILDCARD];
  const unique = [...new Set(input)];
  const wildcards = unique.filter((entry) => entry.endsWith('.*'));
  return unique.filter((entry) => entry.endsWith('.*') || !wildcards.some((w) => subscriptionCovers(w, entry)));
}
