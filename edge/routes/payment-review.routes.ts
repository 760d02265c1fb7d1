/**
 * POST /v1/payments/{id}/review (spec, Payments): the merchant decides a payment held at a flow's Manual review
 * node. 201 answers the payment as it stands once the flow went on from the review (approved: perhaps authorized by
 * the acquirer the flow leads to); 409 invalid_state when the payment is not in review or its review was just decided.
 */
import type { DecidePaymentReview, ReviewDecision } from '../../application/payments/decide-payment-review';
import { MAX_REVIEW_NOTE_LENGTH } from '../../domain/flow-run/flow-review';
import { refuseCardDataInText } from '../../domain/payment/sensitive-card-data';
import { tenantScopeOf } from '../http/principal';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { JsonSchema } from '../http/validation';
import { paymentResponse } from './payments.schemas';

export const reviewBody: JsonSchema = {
  type: 'object',
  required: ['decision'],
  examples: [{ decision: 'approve', note: 'Customer confirmed the order by phone.' }],
  properties: {
    decision: { type: 'string', enum: ['approve', 'decline'] },
    note: { type: ['string', 'null'], maxLength: MAX_REVIEW_NOTE_LENGTH },
  },
};

export interface PaymentReviewRouteDeps {
  readonly review: DecidePaymentReview;
}

export function paymentReviewRoutes(deps: PaymentReviewRouteDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/payments/:id/review', operationId: 'reviewPayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Decide a payment held at a flow\'s Manual review step',
      description:
        'approve leads the flow on by the review node\'s approved exit, decline by its declined exit; the answer is the payment after the flow went on. ' +
        '409 invalid_state when the payment is not held at a review step or its review was just decided (of two concurrent decisions one wins).',
      successStatus: 201, idempotent: true, body: reviewBody,
      handler: async (request) => {
        const body = request.body as { decision: ReviewDecision; note?: string | null };
        // The note is free text a reviewer could paste a card number into (spec, Authentication 8).
        refuseCardDataInText({ metadata: {}, metadataParam: 'body.metadata', freeText: [['body.note', body.note]] });
        return {
          body: await deps.review.execute({ scope: tenantScopeOf(request.principal), paymentId: request.params.id!, decision: body.decision, note: body.note ?? null }),
        };
      },
    }),
  ];
}
