/**
 * The device fingerprint session of a transparent checkout (spec, Payments rule 6): when the account that charges
 * the card runs the acquirer's antifraud analysis, the service opens a session whose id the provider's script in the
 * buyer's browser reports the device under, and the authorization names the same id so the provider can join them.
 */
import { DomainError } from '../shared/domain-error';

/** Spec, fraudAnalysis.fingerprintSessionId: 1-88 letters, digits, underscores or hyphens. */
export const FINGERPRINT_SESSION_ID = /^[A-Za-z0-9_-]{1,88}$/;

export interface FingerprintSession {
  /** The antifraud provider whose script collects the device (as the acquirer's analysis names it). */
  provider: string;
  sessionId: string;
}

export function fingerprintSession(provider: string, sessionId: string): FingerprintSession {
  // The id travels to the acquirer as is: one it would refuse must never be stored.
  if (!FINGERPRINT_SESSION_ID.test(sessionId)) throw new DomainError('validation_failed', `Fingerprint session id ${JSON.stringify(sessionId)} is not 1-88 letters, digits, underscores or hyphens.`);
  return { provider, sessionId };
}
