import { InvalidStateError } from '../shared/domain-error';
import { cloneJson } from '../shared/clone-json';
import type { PaymentDomainEvent, PaymentEventType } from './payment.events';
import type { PaymentPrimitives } from './payment.primitives';
import { PaymentLifecycleState, PaymentStatus, PaymentTrigger, nextPaymentState } from './payment.transitions';
import { apportionSplits } from './split-apportionment';

/** Attributes that change on every move or only grow; previousAttributes would only repeat them. */
const NOT_DIFFED = new Set<keyof PaymentPrimitives>(['updatedAt', 'attempts', 'operations', 'antifraud', 'expiryNoticeAt', 'expiryActionRefusal']);

const clone = cloneJson;

/**
 * The Payment aggregate's state and the one way to move it: through the transition table, recording events with
 * previousAttributes. The concerns of the aggregate (payment-*.ts) work on it; only the Payment (payment.ts) holds
 * one, so nothing outside the aggregate changes a payment but through its methods.
 */
export class PaymentInternals {
  private events: PaymentDomainEvent[] = [];
  private lastBefore: PaymentPrimitives | null = null;

  constructor(readonly state: PaymentPrimitives) {}

  /** Returns the recorded events in order and forgets them. */
  pullEvents(): PaymentDomainEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  requireStatus(status: PaymentStatus, trigger: string): void {
    if (this.state.status !== status) throw new InvalidStateError('payment', this.state.status, trigger);
  }

  requireTrigger(trigger: PaymentTrigger): PaymentLifecycleState {
    return nextPaymentState(this.state.status, trigger);
  }

  /** Applies a trigger through the table, then the mutation; returns the state before, for previousAttributes. */
  change(trigger: PaymentTrigger, now: Date, mutate: (s: PaymentPrimitives) => void): PaymentPrimitives {
    const before = clone(this.state);
    const next = nextPaymentState(this.state.status, trigger) as PaymentStatus;
    this.state.status = next;
    mutate(this.state);
    apportionSplits(this.state.splits, this.state);
    this.state.updatedAt = now.toISOString();
    this.lastBefore = before;
    return before;
  }

  record(type: PaymentEventType, before: PaymentPrimitives | null = this.lastBefore): void {
    const previousAttributes: Record<string, unknown> = {};
    if (before) {
      for (const key of Object.keys(this.state) as Array<keyof PaymentPrimitives>) {
        if (NOT_DIFFED.has(key)) continue;
        if (changed(before[key], this.state[key])) previousAttributes[key] = clone(before[key]);
      }
    }
    this.events.push({
      type,
      paymentId: this.state.id,
      organizationId: this.state.organizationId,
      environment: this.state.environment,
      occurredAt: new Date(this.state.updatedAt),
      previousAttributes,
      payment: clone(this.state),
    });
  }

  recordFraudReviewResolved(before: PaymentPrimitives): void {
    this.events.push({
      type: 'payment.fraud_review_resolved',
      paymentId: this.state.id,
      organizationId: this.state.organizationId,
      environment: this.state.environment,
      occurredAt: new Date(this.state.updatedAt),
      previousAttributes: { fraudReview: clone(before.fraudReview) },
      payment: clone(this.state),
    });
  }

  /** An event that is not a change of state (an antifraud assessment registered on the payment). */
  recordEvent(event: PaymentDomainEvent): void {
    this.events.push(event);
  }
}

/** Whether a field changed: primitives compared as they are, objects (copies, never the same reference) as JSON. */
function changed(before: unknown, after: unknown): boolean {
  if (before === after) return false;
  if (typeof before !== 'object' || typeof after !== 'object' || before === null || after === null) return true;
  return JSON.stringify(before) !== JSON.stringify(after);
}
