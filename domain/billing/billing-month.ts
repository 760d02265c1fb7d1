/**
 * Billing months in the platform's time zone (America/Sao_Paulo by default): a month closes at local midnight of
 * its last day, not at UTC midnight. Intl is the only source of zone offsets (no I/O).
 */
export type BillingMonth = string; // YYYY-MM

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function parts(instant: Date, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const formatted = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(instant);
  const get = (type: string) => Number(formatted.find((part) => part.type === type)!.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** True when Intl knows the zone (configuration is checked at start with it). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at an instant, in milliseconds (local = UTC + offset). */
function offsetMs(instant: Date, timeZone: string): number {
  const p = parts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/** The instant of local midnight opening the given day in the zone. */
function localMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const guess = Date.UTC(year, month - 1, day);
  const first = guess - offsetMs(new Date(guess), timeZone);
  // Once more at the result, in case a daylight-saving change lies between the guess and the answer.
  return new Date(guess - offsetMs(new Date(first), timeZone));
}

export function billingMonthOf(instant: Date, timeZone: string): BillingMonth {
  const p = parts(instant, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}`;
}

function split(month: BillingMonth): { year: number; month: number } {
  const match = MONTH.exec(month);
  if (!match) throw new Error(`not a billing month: ${month}`);
  return { year: Number(match[1]), month: Number(match[2]) };
}

export function nextMonth(month: BillingMonth): BillingMonth {
  const { year, month: m } = split(month);
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
}

export function previousMonth(month: BillingMonth): BillingMonth {
  const { year, month: m } = split(month);
  return m === 1 ? `${year - 1}-12` : `${year}-${String(m - 1).padStart(2, '0')}`;
}

/** [start, end) of the month in the zone. */
export function monthBounds(month: BillingMonth, timeZone: string): { start: Date; end: Date } {
  const { year, month: m } = split(month);
  const next = split(nextMonth(month));
  return { start: localMidnight(year, m, 1, timeZone), end: localMidnight(next.year, next.month, 1, timeZone) };
}

export function daysInMonth(month: BillingMonth): number {
  const { year, month: m } = split(month);
  return new Date(Date.UTC(year, m, 0)).getUTCDate();
}

/** Local calendar days of the month from `from` (its day counted whole) to the month's end. */
export function daysFrom(month: BillingMonth, from: Date, timeZone: string): number {
  const { start } = monthBounds(month, timeZone);
  if (from.getTime() <= start.getTime()) return daysInMonth(month);
  const day = parts(from, timeZone).day;
  return daysInMonth(month) - day + 1;
}

/** Local calendar days of the month elapsed at `now`, today counted (1 on the first day). */
export function daysElapsed(month: BillingMonth, now: Date, timeZone: string): number {
  const { start, end } = monthBounds(month, timeZone);
  if (now.getTime() >= end.getTime()) return daysInMonth(month);
  if (now.getTime() < start.getTime()) return 0;
  return parts(now, timeZone).day;
}
