/**
 * The device fingerprint of the transparent checkout (spec, Payments rule 6 and the public view's deviceFingerprint):
 * when the card's charging account asks the acquirer for its antifraud analysis (config `antifraudEnabled`), the
 * service opens a fingerprint session, the page loads the provider's script before the card is entered, and the
 * authorization carries the session id (fraudData.fingerprintSessionId) unless the merchant names its own.
 *
 * Only the sandbox acquirer's script is known to the core. A real provider's adapter would describe its script in
 * its connector Describe answer (see docs/checkout.md); until one does, its accounts open no session and a merchant
 * that runs the provider's script itself sends fraudAnalysis.fingerprintSessionId.
 */
import { fingerprintSession, type FingerprintSession } from '../../domain/payment/fingerprint-session';
import type { CheckoutState } from '../../domain/payment/payment-checkout';
import type { PaymentConnectorAccount } from '../../domain/ports/payment-connectors';
import type { FraudAnalysisInput } from './authorize-request';

/** The path the service serves the sandbox provider's script at (same origin as the page, so its CSP allows it). */
export const SANDBOX_DEVICE_FINGERPRINT_SCRIPT_PATH = '/checkout/device-fingerprint.js';

/** The device fingerprint scripts the core knows, by connector slug: the provider's name and where its script is. */
const SCRIPTS: Readonly<Record<string, { readonly provider: string; readonly scriptUrl: (sessionId: string) => string }>> = {
  // The sandbox acquirer's own analysis (infrastructure/connectors/sandbox/sandbox-fraud-analysis.ts).
  sandbox: {
    provider: 'sandbox-acquirer-fraud',
    scriptUrl: (sessionId) => `${SANDBOX_DEVICE_FINGERPRINT_SCRIPT_PATH}?session_id=${encodeURIComponent(sessionId)}`,
  },
};

export interface DeviceFingerprint {
  readonly provider: string;
  readonly sessionId: string;
  /** The script to load before the card form; a path on the service's origin for the sandbox. */
  readonly scriptUrl: string;
}

/**
 * The session a new checkout opens, or null: only a credit card payment with the customer present (rule 6: the
 * analysis runs for nobody else) charged by an account that runs the acquirer's analysis and whose script is known.
 */
export function openFingerprintSession(
  payment: { readonly methodType: string; readonly initiator?: string | undefined },
  chargingAccount: Pick<PaymentConnectorAccount, 'connectorSlug' | 'config'>,
  newSessionId: () => string,
): FingerprintSession | null {
  if (payment.methodType !== 'card' || payment.initiator === 'merchant') return null;
  if (chargingAccount.config?.antifraudEnabled !== true) return null;
  const script = SCRIPTS[chargingAccount.connectorSlug];
  return script ? fingerprintSession(script.provider, newSessionId()) : null;
}

/** The public view's deviceFingerprint: the script to inject before the card is entered, null when none. */
export function deviceFingerprintOf(checkout: Pick<CheckoutState, 'fingerprintSession'> | null | undefined): DeviceFingerprint | null {
  const session = checkout?.fingerprintSession;
  const script = session ? Object.values(SCRIPTS).find((s) => s.provider === session.provider) : undefined;
  if (!session || !script) return null;
  return { provider: session.provider, sessionId: session.sessionId, scriptUrl: script.scriptUrl(session.sessionId) };
}

/** What the confirmation sends as fraudAnalysis: the body's own session id wins, else the checkout's session. */
export function fraudAnalysisWithSession(
  requested: { readonly fingerprintSessionId: string } | undefined,
  checkout: Pick<CheckoutState, 'fingerprintSession'> | null | undefined,
): FraudAnalysisInput | undefined {
  if (requested) return requested;
  const session = checkout?.fingerprintSession;
  return session ? { fingerprintSessionId: session.sessionId } : undefined;
}
