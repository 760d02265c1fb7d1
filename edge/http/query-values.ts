/**
 * Query values the JSON Schema cannot check on its own, refused as 422 validation_failed with the param, in the
 * same shape as a schema violation (contract.md 3).
 */
import { EARLIEST_INSTANT, LATEST_INSTANT, isRepresentableInstant } from '../../domain/shared/instant-range';
import { HttpError } from './errors';

function invalid(param: string, message: string): HttpError {
  return new HttpError('validation_failed', `${param} ${message}`, { param, details: [{ param, message }] });
}

/**
 * A date-time the schema already accepted, as a Date. ajv's date-time format admits a leap second (23:59:60),
 * which JavaScript cannot represent, and years the database cannot store (0000, or 10000 once an offset is
 * applied); those would fail later as a 500, so they are refused here.
 */
export function queryDate(value: string | undefined, param: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const date = new Date(value);
  if (!isRepresentableInstant(date)) {
    throw invalid(
      param,
      `must be an instant from ${EARLIEST_INSTANT.toISOString()} to ${LATEST_INSTANT.toISOString()} (UTC); leap seconds (23:59:60) are not accepted`,
    );
  }
  return date;
}

/**
 * A comma list whose every value must be one of `allowed` (exact spelling): an unknown value would otherwise
 * filter everything out and answer an empty list that looks like "no such payments".
 */
export function queryList<T extends string>(value: string | undefined, allowed: readonly T[], param: string): T[] | undefined {
  const values = value ? value.split(',').map((v) => v.trim()).filter(Boolean) : [];
  if (values.length === 0) return undefined;
  const known = new Set<string>(allowed);
  const unknown = values.find((v) => !known.has(v));
  if (unknown !== undefined) throw invalid(param, `has an unknown value "${unknown}"; each comma-separated value must be one of: ${allowed.join(', ')}`);
  return values as T[];
}

/** One value that must be one of `allowed`; `describe` names the set when it is too long to list in a message. */
export function queryOneOf<T extends string>(value: string | undefined, allowed: readonly T[], param: string, describe?: string): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw invalid(param, `"${value}" is not one of ${describe ?? allowed.join(', ')}`);
  return value as T;
}
