/**
 * Examples for the OpenAPI document, made from the same JSON Schemas the edge validates with, so a schema
 * change cannot leave a stale example behind. A schema (or one of its properties) may carry its own
 * `examples`, which win: that is how a request body says "pay with tok_sandbox_approved" instead of whatever a
 * tool would make up (swagger-ui's made-up card body held a card number, which the API refuses).
 * test/e2e/reference/openapi.test.ts validates every example against the schema it illustrates.
 */
import type { JsonSchema } from './http/validation';

/** Request examples name the required fields and those with an example; responses show every field. */
export type ExampleKind = 'request' | 'response';

const EXAMPLE_TIME = '2026-01-15T12:00:00.000Z';

const STRING_FORMATS: Record<string, string> = {
  'date-time': EXAMPLE_TIME,
  date: '2026-01-15',
  email: 'merchant@example.com',
  uri: 'https://merchant.example.com/webhooks',
  url: 'https://merchant.example.com/webhooks',
  uuid: '0b7c6c36-5d2f-4b8e-9a57-3c3f4a2f1d10',
  ipv4: '203.0.113.10',
  ipv6: '2001:db8::10',
  hostname: 'merchant.example.com',
};

export function exampleOf(schema: JsonSchema | undefined, kind: ExampleKind, name = ''): unknown {
  if (!schema) return {};
  const given = declaredExample(schema);
  if (given !== undefined) return given;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key] as JsonSchema[] | undefined;
    // The first branch, merged into the schema around it (its required fields and properties add to the outer ones).
    if (branches?.length) return exampleOf(mergeBranch(withoutKeys(schema, ['oneOf', 'anyOf']), branches[0]), kind, name);
  }
  const allOf = schema.allOf as JsonSchema[] | undefined;
  if (allOf?.length) {
    const parts = [withoutKeys(schema, ['allOf']), ...allOf].map((part) => exampleOf(part, kind, name));
    return parts.every(isPlainObject) ? Object.assign({}, ...parts) : parts[parts.length - 1];
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectExample(schema, kind);
    case 'array':
      return arrayExample(schema, kind, name);
    case 'string':
      return stringExample(schema, name);
    case 'integer':
    case 'number':
      return numberExample(schema, name);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return schema.properties ? objectExample(schema, kind) : {};
  }
}

function declaredExample(schema: JsonSchema): unknown {
  const examples = schema.examples as unknown[] | undefined;
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  const values = schema.enum as unknown[] | undefined;
  if (Array.isArray(values) && values.length > 0) return schema.default !== undefined && values.includes(schema.default) ? schema.default : values[0];
  if (schema.default !== undefined && typeof schema.default !== 'object') return schema.default;
  return undefined;
}

function typeOf(schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return (type as string[]).find((candidate) => candidate !== 'null') ?? 'null';
  return type as string | undefined;
}

function objectExample(schema: JsonSchema, kind: ExampleKind): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const example: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const shown = kind === 'response' ? !isRefusedField(property) : required.has(name) || hasOwnExample(property);
    if (shown) example[name] = exampleOf(property, kind, name);
  }
  return example;
}

/** A property documented only to say it is refused (card numbers): no example ever shows it. */
function isRefusedField(property: JsonSchema): boolean {
  return property.type === undefined && property.properties === undefined && Object.keys(property).every((key) => key === 'description');
}

function hasOwnExample(property: JsonSchema): boolean {
  return Array.isArray(property.examples) || property.example !== undefined;
}

function arrayExample(schema: JsonSchema, kind: ExampleKind, name: string): unknown[] {
  const items = schema.items as JsonSchema | undefined;
  const count = Math.max(1, Number(schema.minItems ?? 1));
  if (!items || Number(schema.maxItems ?? 1) === 0) return [];
  return Array.from({ length: count }, () => exampleOf(items, kind, name));
}

function stringExample(schema: JsonSchema, name: string): string {
  const format = schema.format as string | undefined;
  if (format && STRING_FORMATS[format]) return STRING_FORMATS[format];
  const pattern = schema.pattern as string | undefined;
  // An identifier pattern that fixes a prefix (^pay_, ^rcp_): the prefix and a ULID-like body.
  const prefix = pattern?.match(/^\^([a-z]+_)/)?.[1];
  let text = prefix ? `${prefix}01JF3Q8Z4N6V2K7T9W5X1Y3C8D` : name.endsWith('At') ? EXAMPLE_TIME : name || 'text';
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Number(schema.maxLength ?? Infinity);
  while (text.length < minLength) text += 'x';
  return text.slice(0, maxLength);
}

function numberExample(schema: JsonSchema, name: string): number {
  const minimum = schema.minimum as number | undefined;
  const maximum = schema.maximum as number | undefined;
  const wanted = /amount/i.test(name) ? 1500 : minimum ?? 0;
  return Math.min(Math.max(wanted, minimum ?? -Infinity), maximum ?? Infinity);
}

function mergeBranch(outer: JsonSchema, branch: JsonSchema): JsonSchema {
  return {
    ...outer,
    ...branch,
    required: [...((outer.required as string[] | undefined) ?? []), ...((branch.required as string[] | undefined) ?? [])],
    properties: { ...(outer.properties as object | undefined), ...(branch.properties as object | undefined) },
  };
}

function withoutKeys(schema: JsonSchema, keys: readonly string[]): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
