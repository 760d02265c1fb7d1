/**
 * The transparent checkout's part of the payments module: the server and browser confirmations, the public routes,
 * and the job that cancels checkouts whose deadline passed (every CHECKOUT_EXPIRY_SCAN_MS on each worker; the claim
 * skips rows another worker holds, so a payment is canceled once however many workers run it).
 */
import { MerchantNames } from '../../application/organization/merchant-names';
import { ConfirmCheckout } from '../../application/payments/confirm-checkout';
import { ExpireCheckouts } from '../../application/payments/expire-checkouts';
import type { PaymentDeps } from '../../application/payments/payment-deps';
import { PublicCheckout } from '../../application/payments/public-checkout';
import { ResumeFlowRun } from '../../application/payments/resume-flow-run';
import { SubmitThreeDsResult } from '../../application/payments/submit-three-ds-result';
import type { CheckoutSecrets } from '../../domain/ports/checkout-secrets';
import type { RouteDefinition } from '../../edge/http/route';
import { checkoutRoutes } from '../../edge/routes/checkout.routes';
import { checkoutPageRoutes } from '../../edge/routes/checkout-page.routes';
import { checkoutPageAssets } from '../http/checkout-page-assets';
import { SqlCheckoutPayments } from '../persistence/checkout-payments.repository';
import type { Core } from './core';
import { periodicWorker, type BackgroundWorker } from './module';

export interface CheckoutParts {
  readonly routes: readonly RouteDefinition[];
  readonly workers: readonly BackgroundWorker[];
  readonly checkoutExpiry: ExpireCheckouts;
}

export function checkoutParts(core: Core, deps: PaymentDeps & { readonly checkoutSecrets: CheckoutSecrets }, options: { expiryScanIntervalMs?: number } = {}): CheckoutParts {
  const checkoutPayments = new SqlCheckoutPayments(core.transactor);
  const merchantNames = new MerchantNames(core.transactor, core.organizations.repository, { changes: core.changes, clock: core.clock });
  const merchantName = (organizationId: string) => merchantNames.of(organizationId);
  const expiry = new ExpireCheckouts(deps, checkoutPayments);
  return {
    routes: [
      ...checkoutRoutes({
        confirm: new ConfirmCheckout(deps),
        publicCheckout: new PublicCheckout({ ...deps, checkoutPayments, merchantName }),
        threeDs: new SubmitThreeDsResult(deps, new ResumeFlowRun(deps)),
        secrets: deps.checkoutSecrets,
        merchantName,
      }),
      // The hosted page and checkout.js; the page may call the embedded vault's origin, where the card goes.
      ...checkoutPageRoutes({ assets: checkoutPageAssets, vaultOrigins: () => vaultOrigins(core) }),
    ],
    workers: [
      periodicWorker('checkout-expiry', options.expiryScanIntervalMs ?? 30_000, () => expiry.run(), (error) => core.logger.error({ err: error }, 'checkout expiry failed')),
    ],
    checkoutExpiry: expiry,
  };
}

/** The origins of the card vaults this installation's adapters run (the sandbox acquirer's). */
function vaultOrigins(core: Core): string[] {
  return [...new Set(core.adapters.flatMap((adapter) => (adapter.vaultUrl ? [new URL(adapter.vaultUrl).origin] : [])))];
}
