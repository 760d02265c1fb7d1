/**
 * The instants the service can store and print: four-digit UTC years, 0001 to 9999. That is what ISO 8601
 * timestamps without a sign can say (and what toISOString prints without one), and PostgreSQL's timestamptz holds
 * all of it. JavaScript parses further (year 0, year 10000 after an offset), but the database refuses those, so
 * an instant from outside is refused as input instead of failing in a query.
 */
export const EARLIEST_INSTANT = new Date('0001-01-01T00:00:00.000Z');
export const LATEST_INSTANT = new Date('9999-12-31T23:59:59.999Z');

/** A valid Date within EARLIEST_INSTANT..LATEST_INSTANT (an Invalid Date, e.g. from a leap second, is not). */
export function isRepresentableInstant(date: Date): boolean {
  const time = date.getTime();
  return !Number.isNaN(time) && time >= EARLIEST_INSTANT.getTime() && time <= LATEST_INSTANT.getTime();
}
