/**
 * What the flow's antifraud and zero_auth nodes leave on the payment, recorded with the steps that took them (each
 * step once: steps are only ever appended): an antifraud node's analysis is registered as an assessment of origin
 * flow_node with antifraud.assessment_completed (spec, payload rule 7), a zero_auth node's verification is emitted as
 * payment_method.verified (rule 8); a split node's shares become the payment's splits.
 */
import { cloneJson } from '../shared/clone-json';
import type { FlowRunStep } from '../flow-run/flow-run';
import { registerAntifraudAssessment } from './payment-fraud-review';
import type { PaymentInternals } from './payment-internals';

export function recordFlowNodeResults(payment: PaymentInternals, steps: readonly FlowRunStep[], now: Date): void {
  for (const step of steps) {
    if (step.antifraud) {
      const a = step.antifraud;
      registerAntifraudAssessment(payment, {
        id: a.assessmentId,
        origin: 'flow_node',
        provider: a.provider,
        providerStatus: null,
        recommendation: a.recommendation,
        score: a.score,
        triggeredRules: a.triggeredRules,
        connectorAccountId: a.connectorAccountId,
        now,
      });
    }
    // A split node's shares, taken before the first acquirer call (publishing keeps split nodes ahead of every call
    // and wait), so the authorization carries them; a payment with splits of its own never gets a split step.
    if (step.split && payment.state.splits.length === 0) payment.state.splits = step.split.map((share) => ({ ...share }));
    if (step.verification) {
      const s = payment.state;
      payment.recordEvent({
        type: 'payment_method.verified',
        paymentId: s.id,
        organizationId: s.organizationId,
        environment: s.environment,
        occurredAt: now,
        previousAttributes: {},
        payment: cloneJson(s),
        verification: { nodeId: step.nodeId, ...step.verification },
      });
    }
  }
}
