/**
 * A deep copy of JSON-shaped data (plain objects, arrays, strings, numbers, booleans, null), which is all aggregate
 * state holds. Several times faster than structuredClone, which serializes through the structured-clone format; a
 * payment's state is copied several times per request (snapshots for previousAttributes, events, primitives).
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = cloneJson((value as Record<string, unknown>)[key]);
  return copy as T;
}
