/**
 * When the service next asks the bank about an open Pix or boleto charge. Notices from the bank are hints that may be
 * lost; polling is what guarantees a paid charge is learnt of. It backs off as the charge ages (a Pix is usually paid
 * within minutes, a boleto within days): the first look soon after issue, then every half of the time waited so far,
 * between a floor and a ceiling, and never later than the charge's expiry, when it is settled one way or the other.
 * Pure: the time waited is counted from the wait's start, so no poll counter needs storing.
 */
export interface BankPollSchedule {
  /** The first look, and the shortest gap between two. */
  readonly minIntervalMs: number;
  /** The longest gap between two looks. */
  readonly maxIntervalMs: number;
}

export const DEFAULT_BANK_POLL_SCHEDULE: BankPollSchedule = { minIntervalMs: 60_000, maxIntervalMs: 30 * 60_000 };

export function nextBankPollAt(input: { since: Date; now: Date; expiresAt: Date | null; schedule?: BankPollSchedule }): Date {
  const schedule = input.schedule ?? DEFAULT_BANK_POLL_SCHEDULE;
  const waited = Math.max(0, input.now.getTime() - input.since.getTime());
  const gap = Math.min(schedule.maxIntervalMs, Math.max(schedule.minIntervalMs, Math.floor(waited / 2)));
  const next = input.now.getTime() + gap;
  if (input.expiresAt && input.expiresAt.getTime() < next) return new Date(Math.max(input.expiresAt.getTime(), input.now.getTime()));
  return new Date(next);
}
