/**
 * The free production trial (spec, Free trial; Limits): a company gets 30 days or 50 production payments,
 * whichever ends first. Brands share their company's allowance, and a company whose document or e-mail already
 * had a trial gets none.
 */
export const TRIAL_DAYS = 30;
export const TRIAL_PAYMENTS = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TrialAllowance {
  readonly eligible: boolean;
  readonly startedAt: Date;
  /** Production payments the trial has admitted. */
  readonly paymentsUsed: number;
}

export type TrialStatus = 'active' | 'ended' | 'not_eligible';

export interface TrialState {
  readonly status: TrialStatus;
  readonly endsAt: Date;
  readonly paymentsUsed: number;
  readonly paymentsRemaining: number;
  /** What ended it: the days, the payments, or null while active (or never eligible). */
  readonly endedBy: 'days' | 'payments' | null;
}

export function trialEndsAt(startedAt: Date): Date {
  return new Date(startedAt.getTime() + TRIAL_DAYS * DAY_MS);
}

export function trialState(allowance: TrialAllowance, now: Date): TrialState {
  const endsAt = trialEndsAt(allowance.startedAt);
  const paymentsUsed = Math.min(allowance.paymentsUsed, TRIAL_PAYMENTS);
  const paymentsRemaining = allowance.eligible ? TRIAL_PAYMENTS - paymentsUsed : 0;
  if (!allowance.eligible) return { status: 'not_eligible', endsAt, paymentsUsed, paymentsRemaining, endedBy: null };
  if (now.getTime() >= endsAt.getTime()) return { status: 'ended', endsAt, paymentsUsed, paymentsRemaining, endedBy: 'days' };
  if (paymentsRemaining === 0) return { status: 'ended', endsAt, paymentsUsed, paymentsRemaining, endedBy: 'payments' };
  return { status: 'active', endsAt, paymentsUsed, paymentsRemaining, endedBy: null };
}
