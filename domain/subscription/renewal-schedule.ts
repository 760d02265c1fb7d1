/** How often a subscription charges (contract.md 4). */
export type RenewalInterval = 'day' | 'week' | 'month' | 'year';

const DAY_MS = 86_400_000;

/**
 * When charge number `n` (0 = the first, at `anchor`) of a subscription falls: `n * intervalCount` intervals after
 * the anchor. Months and years are counted on the calendar (UTC) from the anchor itself, never from the previous
 * charge, so a subscription started on the 31st charges on the last day of shorter months and is back on the 31st
 * when the month has one (Jan 31 -> Feb 28 -> Mar 31), and Feb 29 falls on Feb 28 in common years.
 */
export function chargeDate(anchor: Date, interval: RenewalInterval, intervalCount: number, n: number): Date {
  const steps = n * intervalCount;
  if (interval === 'day') return new Date(anchor.getTime() + steps * DAY_MS);
  if (interval === 'week') return new Date(anchor.getTime() + steps * 7 * DAY_MS);
  const months = interval === 'month' ? steps : steps * 12;
  const monthIndex = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}
