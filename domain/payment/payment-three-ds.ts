/**
 * 3-D Secure on a card payment (spec: Payment transitions, requires_action three_ds rows): the flow reached a three_ds
 * node, so the payment waits in requires_action for the buyer to authenticate until the node's deadline. The result
 * takes it back to processing (the flow goes on from the node's exit: the acquirer, or a decline); the deadline
 * passing first closes it, canceled. What the payment keeps is the result and the ECI: the authentication values
 * (CAVV, XID) go to the acquirer with the authorization and are never part of the payment.
 */
import { cloneJson as clone } from '../shared/clone-json';
import type { PaymentInternals } from './payment-internals';
import type { ThreeDsExit } from './three-ds-eci';
export type { ThreeDsState, ThreeDsStatus } from './payment.primitives';

/** How long the buyer has to authenticate at a three_ds node (docs/checkout.md): 10 minutes. */
export const THREE_DS_TIMEOUT_SECONDS = 10 * 60;

/** The run waits for a 3DS result: requires_action with nextAction three_ds until `expiresAt`. */
export function requireThreeDs(payment: PaymentInternals, input: { readonly expiresAt: string | null; readonly now: Date }): void {
  payment.change('require_three_ds', input.now, (s) => {
    s.threeDs = { status: 'pending', requestedAt: input.now.toISOString(), expiresAt: input.expiresAt, eci: null, resolvedAt: null };
  });
}

/** The buyer's result arrived in time: back to processing, the flow goes on from the node's exit. */
export function recordThreeDsResult(payment: PaymentInternals, input: { readonly exit: ThreeDsExit; readonly eci: string | null; readonly now: Date }): void {
  const pending = clone(payment.state.threeDs ?? null);
  payment.change('three_ds_result', input.now, (s) => {
    s.threeDs = { requestedAt: pending?.requestedAt ?? input.now.toISOString(), expiresAt: pending?.expiresAt ?? null, status: input.exit, eci: input.eci, resolvedAt: input.now.toISOString() };
  });
}

/** The authentication time passed without a result: the payment is closed (canceled, payment.canceled). */
export function expireThreeDs(payment: PaymentInternals, input: { readonly message: string; readonly now: Date }): void {
  const pending = clone(payment.state.threeDs ?? null);
  payment.change('expire', input.now, (s) => {
    s.threeDs = { requestedAt: pending?.requestedAt ?? input.now.toISOString(), expiresAt: pending?.expiresAt ?? null, eci: null, status: 'expired', resolvedAt: input.now.toISOString() };
    s.routingStopReason = 'authentication_expired';
    s.error = { code: 'authentication_expired', message: input.message, stage: 'authentication', connectorAccount: null };
  });
  payment.record('payment.canceled');
}

/** Whether the payment waits in requires_action for the buyer's 3DS result. */
export function awaitsThreeDs(state: { readonly status: string; readonly threeDs?: { readonly status: string } | null }): boolean {
  return state.status === 'requires_action' && state.threeDs?.status === 'pending';
}

/** Whether the authentication deadline has passed at `now`. */
export function isThreeDsExpired(threeDs: { readonly expiresAt: string | null } | null | undefined, now: Date): boolean {
  return !!threeDs?.expiresAt && now.getTime() >= Date.parse(threeDs.expiresAt);
}
