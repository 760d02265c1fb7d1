/**
 * The transparent checkout's routes: the merchant's server confirm (API key), and the buyer's browser routes under
 * /v1/public (Service-Client-Secret, no API key; CORS from any origin; per-payment limits counted on arrival, so
 * every request counts whatever its answer, contract.md 7).
 */
import type { ConfirmCheckout, ConfirmCheckoutCommand } from '../../application/payments/confirm-checkout';
import { merchantPaymentObject, revealWith } from '../../application/payments/payment-object';
import { publicPaymentView, type CheckoutPass, type PublicCheckout } from '../../application/payments/public-checkout';
import type { SubmitThreeDsResult } from '../../application/payments/submit-three-ds-result';
import type { CheckoutSecrets } from '../../domain/ports/checkout-secrets';
import { refuseCardDataInText, refuseSensitiveCardData } from '../../domain/payment/sensitive-card-data';
import { HttpError } from '../http/errors';
import { tenantScopeOf } from '../http/principal';
import type { ThreeDsOutcome } from '../../domain/payment/three-ds-eci';
import { defineRoute, type ApiRequest, type ArrivalRateLimitRule, type CredentialRequest, type OpenedCredential, type RouteDefinition } from '../http/route';
import { confirmCheckoutBody, publicPaymentResponse, threeDsResultBody, tokenizationSessionResponse } from './checkout.schemas';
import { paymentResponse } from './payments.schemas';

export interface CheckoutRouteDeps {
  readonly confirm: ConfirmCheckout;
  readonly publicCheckout: PublicCheckout;
  readonly threeDs: SubmitThreeDsResult;
  readonly secrets: CheckoutSecrets;
  readonly merchantName: (organizationId: string) => Promise<string | null>;
}

const HOUR = 3600;

/** Spec, Limits: per payment and hour, whatever the answer. */
function perPayment(name: string, points: number): ArrivalRateLimitRule {
  return { name, points, durationSeconds: HOUR, key: (params) => params.id ?? null };
}

function clientSecretOf(headers: CredentialRequest['headers']): string | undefined {
  const value = headers['service-client-secret'];
  return typeof value === 'string' ? value : undefined;
}

/** The payment the client secret opened, as the route's `authenticate` read it (the request reads it once). */
function passOf(request: ApiRequest): CheckoutPass {
  return request.credentialSubject as CheckoutPass;
}

function confirmCommand(request: ApiRequest, channel: ConfirmCheckoutCommand['channel']): ConfirmCheckoutCommand {
  const body = request.body as Record<string, any>;
  refuseSensitiveCardData(body);
  refuseCardDataInText({ metadata: {}, metadataParam: 'body.metadata', freeText: [['body.card.holderName', body.card?.holderName]] });
  return {
    scope: request.credentialScope ?? tenantScopeOf(request.principal),
    paymentId: request.params.id!,
    channel,
    card: body.card,
    ...(body.saveCard !== undefined ? { saveCard: body.saveCard as boolean } : {}),
    ...(body.fraudAnalysis ? { fraudAnalysis: body.fraudAnalysis } : {}),
    ...(body.device ? { device: body.device } : {}),
  };
}

export function checkoutRoutes(deps: CheckoutRouteDeps): RouteDefinition[] {
  /** The client secret opens the payment's organization and environment (and scopes its Idempotency-Keys). */
  const authenticate = async (request: CredentialRequest): Promise<OpenedCredential> => {
    const pass = await deps.publicCheckout.authenticate(request.params.id ?? '', clientSecretOf(request.headers));
    return { scope: pass.scope, subject: pass };
  };
  return [
    defineRoute({
      method: 'post', path: '/v1/payments/:id/confirm', operationId: 'confirmPayment', response: paymentResponse, tag: 'Payments', auth: 'merchant', scopes: ['payments:write'],
      summary: 'Confirm a transparent checkout payment with the buyer\'s card token (server side)',
      description:
        'One card attempt: send a new Idempotency-Key for each new card (repeating a key replays the first answer). Runs the flow again as customer-present; ' +
        'does no 3DS (a three_ds node follows its unavailable exit). A reversible decline returns the payment to requires_payment_method while attempts and time remain. ' +
        '409 once the payment no longer awaits a card; 410 after the deadline (the payment is canceled); 422 saveCard without customerId.',
      successStatus: 201, idempotent: true, body: confirmCheckoutBody,
      handler: async (request) => ({ body: merchantPaymentObject(await deps.confirm.execute(confirmCommand(request, 'server')), revealWith(deps.secrets)) }),
    }),
    defineRoute({
      method: 'get', path: '/v1/public/payments/:id', operationId: 'getPublicPayment', response: publicPaymentResponse, tag: 'Checkout', auth: 'custom', authenticate,
      summary: 'Public view of a checkout payment (Service-Client-Secret)', successStatus: 200,
      handler: async (request) => ({ body: await deps.publicCheckout.view(passOf(request)) }),
    }),
    defineRoute({
      method: 'post', path: '/v1/public/payments/:id/tokenization-session', operationId: 'createTokenizationSession', response: tokenizationSessionResponse, tag: 'Checkout',
      auth: 'custom', authenticate, arrivalRateLimits: [perPayment('checkout.tokenization_session', 10)],
      summary: 'Open a tokenization session at the sandbox vault for the next card (Service-Client-Secret)',
      description: 'Sandbox environment with the sandbox connector only; a real provider answers 422 hosted_checkout_required. A new session for each card attempt. Limit 10 per hour per payment.',
      successStatus: 201,
      handler: async (request) => {
        if (request.body !== undefined && Object.keys(request.body as object).length > 0) throw new HttpError('validation_failed', 'This operation takes no request body', { param: 'body' });
        return { body: await deps.publicCheckout.tokenizationSession(passOf(request)) };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/public/payments/:id/confirm', operationId: 'confirmPublicPayment', response: publicPaymentResponse, tag: 'Checkout',
      auth: 'custom', authenticate, arrivalRateLimits: [perPayment('checkout.confirm', 5)],
      summary: 'Confirm the payment with the card token from the vault (Service-Client-Secret, Idempotency-Key)',
      description: 'Same body as the server confirm. Idempotency-Key is required: a new key per card, a repeated key replays the first answer. Sandbox connector in sandbox only (else 422 hosted_checkout_required). Limit 5 per hour per payment.',
      successStatus: 201, idempotent: true, body: confirmCheckoutBody,
      handler: async (request) => {
        if (!request.headers['idempotency-key']) throw new HttpError('validation_failed', 'Send a new Idempotency-Key for each card attempt.', { param: 'header.Idempotency-Key' });
        const pass = passOf(request);
        await deps.publicCheckout.assertBrowserConfirmable(pass);
        const confirmed = await deps.confirm.execute({ ...confirmCommand(request, 'browser'), payment: pass.payment });
        return { body: publicPaymentView(confirmed, await deps.merchantName(pass.scope.organizationId)) };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/public/payments/:id/three-ds', operationId: 'submitPublicThreeDsResult', response: publicPaymentResponse, tag: 'Checkout',
      auth: 'custom', authenticate, arrivalRateLimits: [perPayment('checkout.three_ds', 10)],
      summary: 'Send the buyer\'s 3DS result (Service-Client-Secret, Idempotency-Key)',
      description:
        'Valid while the payment is requires_action with nextAction three_ds and before nextAction.expiresAt. The card network\'s ECI decides the three_ds node\'s exit ' +
        '(Visa 05 / Mastercard 02 authenticated; 06 / 01 attempted and the rest unavailable; 07 / 00 or outcome failure failed); the flow resumes and the answer is the payment as it ended. ' +
        'CAVV and XID go to the acquirer with the authorization and are never stored. 409 when the payment does not await 3DS; 410 once the authentication time is over (the payment is closed). Limit 10 per hour per payment.',
      successStatus: 201, idempotent: true, body: threeDsResultBody,
      handler: async (request) => {
        if (!request.headers['idempotency-key']) throw new HttpError('validation_failed', 'Send an Idempotency-Key with the 3DS result.', { param: 'header.Idempotency-Key' });
        const pass = passOf(request);
        const body = request.body as Record<string, string | undefined>;
        const ended = await deps.threeDs.execute({
          scope: pass.scope,
          paymentId: pass.paymentId,
          outcome: body.outcome as ThreeDsOutcome,
          ...(body.eci ? { eci: body.eci } : {}),
          ...(body.cavv ? { cavv: body.cavv } : {}),
          ...(body.xid ? { xid: body.xid } : {}),
          ...(body.version ? { version: body.version } : {}),
          ...(body.referenceId ? { referenceId: body.referenceId } : {}),
        });
        return { body: publicPaymentView(ended, await deps.merchantName(pass.scope.organizationId)) };
      },
    }),
  ];
}
