import type { ConnectorJsonSchema } from '../ports/connector-description';

/**
 * Credentials are never returned. A read reports, per credential field of the connector's schema (and any
 * stored field the schema no longer lists), only whether it is filled and, for a field not marked
 * `x-secret`, a masked fragment so an operator can tell accounts apart.
 */
export interface CredentialFieldView {
  readonly filled: boolean;
  readonly preview?: string;
}

const MASK = '••••';

/** At most the last 4 characters, and never more than a third of the value. */
export function maskedPreview(value: string): string {
  const visible = Math.min(4, Math.floor(value.length / 3));
  return visible > 0 ? `${MASK}${value.slice(-visible)}` : MASK;
}

export function isSecretField(schema: ConnectorJsonSchema, field: string): boolean {
  const property = schema.properties?.[field];
  // A field the schema does not describe is treated as secret: never preview what we cannot classify.
  return property === undefined || property['x-secret'] === true;
}

export function credentialFieldViews(
  schema: ConnectorJsonSchema,
  credentials: Readonly<Record<string, string>>,
): Record<string, CredentialFieldView> {
  const fields = new Set([...Object.keys(schema.properties ?? {}), ...Object.keys(credentials)]);
  const views: Record<string, CredentialFieldView> = {};
  for (const field of [...fields].sort()) {
    const value = credentials[field];
    const filled = typeof value === 'string' && value.length > 0;
    views[field] = filled && !isSecretField(schema, field) ? { filled, preview: maskedPreview(value) } : { filled };
  }
  return views;
}

/**
 * PATCH merge of credentials (spec, Connectors table): an omitted or empty credential keeps its current value;
 * a non-empty one replaces it. Returns the merged map and whether anything changed.
 */
export function mergeCredentials(
  current: Readonly<Record<string, string>>,
  patch: Readonly<Record<string, string>> | undefined,
): { merged: Record<string, string>; changed: boolean } {
  const merged: Record<string, string> = { ...current };
  let changed = false;
  for (const [field, value] of Object.entries(patch ?? {})) {
    if (value === '') continue;
    if (merged[field] !== value) {
      merged[field] = value;
      changed = true;
    }
  }
  return { merged, changed };
}

/**
 * PATCH merge of config: keys sent replace the current ones, keys sent as null are removed (the connector's
 * default applies again), keys not sent are kept. A null config resets every key to its default.
 */
export function mergeConfig(
  current: Readonly<Record<string, unknown>>,
  patch: Readonly<Record<string, unknown>> | null | undefined,
): Record<string, unknown> {
  if (patch === null) return {};
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
