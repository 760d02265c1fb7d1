import { expect } from 'chai';
import { InvalidStateError } from '../../../../domain/shared/domain-error';
import {
  ENDPOINT_STATUSES,
  ENDPOINT_TRIGGERS,
  nextEndpointStatus,
  type EndpointStatus,
  type EndpointTrigger,
} from '../../../../domain/webhook/webhook-endpoint.transitions';
import {
  DELIVERY_STATUSES,
  DELIVERY_TRIGGERS,
  nextDeliveryStatus,
  type DeliveryStatus,
  type DeliveryTrigger,
} from '../../../../domain/webhook/webhook-delivery.transitions';

describe('webhook endpoint transitions', () => {
  const expected: Record<EndpointStatus, Partial<Record<EndpointTrigger, EndpointStatus>>> = {
    active: { attempt_succeeded: 'active', attempt_failed: 'failing', user_disable: 'disabled', user_enable: 'active', url_changed: 'active' },
    failing: {
      attempt_succeeded: 'active',
      attempt_failed: 'failing',
      auto_disable: 'auto_disabled',
      user_disable: 'disabled',
      user_enable: 'active',
      url_changed: 'active',
    },
    disabled: { attempt_succeeded: 'disabled', attempt_failed: 'disabled', user_disable: 'disabled', user_enable: 'active', url_changed: 'disabled' },
    auto_disabled: {
      attempt_succeeded: 'auto_disabled',
      attempt_failed: 'auto_disabled',
      user_disable: 'disabled',
      user_enable: 'active',
      url_changed: 'auto_disabled',
    },
  };
  for (const state of ENDPOINT_STATUSES) {
    for (const trigger of ENDPOINT_TRIGGERS) {
      const to = expected[state][trigger];
      it(`${state} --${trigger}--> ${to ?? 'refused'}`, () => {
        if (to === undefined) {
          expect(() => nextEndpointStatus(state, trigger)).to.throw(InvalidStateError).with.property('code', 'invalid_state');
        } else {
          expect(nextEndpointStatus(state, trigger)).to.equal(to);
        }
      });
    }
  }
});

describe('webhook delivery transitions', () => {
  const retry = { manual_retry: 'pending' } as const;
  const open = {
    attempt_succeeded: 'succeeded',
    attempt_failed: 'failed',
    attempts_exhausted: 'exhausted',
    endpoint_switched_off: 'disabled',
    manual_retry: 'pending',
  } as const;
  const expected: Record<DeliveryStatus, Partial<Record<DeliveryTrigger, DeliveryStatus>>> = {
    pending: open,
    failed: open,
    succeeded: retry,
    exhausted: retry,
    disabled: retry,
  };
  for (const state of DELIVERY_STATUSES) {
    for (const trigger of DELIVERY_TRIGGERS) {
      const to = expected[state][trigger];
      it(`${state} --${trigger}--> ${to ?? 'refused'}`, () => {
        if (to === undefined) {
          expect(() => nextDeliveryStatus(state, trigger)).to.throw(InvalidStateError);
        } else {
          expect(nextDeliveryStatus(state, trigger)).to.equal(to);
        }
      });
    }
  }
});
