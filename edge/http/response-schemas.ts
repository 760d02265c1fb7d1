/**
 * Building blocks of the routes' response schemas (documentation only: the OpenAPI document and the typed client
 * read them, the edge never validates an answer against them). test/e2e/reference/response-schemas.test.ts checks
 * real answers against them, so a `required` here is a promise that the field is always present.
 */
import type { JsonSchema } from './validation';

export const str: JsonSchema = { type: 'string' };
export const int: JsonSchema = { type: 'integer' };
export const bool: JsonSchema = { type: 'boolean' };
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const freeObject: JsonSchema = { type: 'object' };

/** OpenAPI 3.1 (JSON Schema) spelling of "may be null". */
export function nullable(schema: JsonSchema): JsonSchema {
  return typeof schema.type === 'string' && !schema.enum ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
}

/** A fixed `object` discriminator, so the typed client narrows on it. */
export function objectName(name: string): JsonSchema {
  return { type: 'string', enum: [name] };
}

/** An object whose listed properties are all always present. */
export function record(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', required: Object.keys(properties), properties, ...extra };
}

/** A page of a list: `{object: 'list', data, hasMore}`. */
export function listOf(item: JsonSchema): JsonSchema {
  return record({ object: objectName('list'), data: { type: 'array', items: item }, hasMore: bool });
}

/** The answer of a removal: `{object, id, deleted: true}` plus what the route adds. */
export function deletedResponse(object: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return record({ object: objectName(object), id: str, deleted: { type: 'boolean', enum: [true] }, ...extra });
}

/** An acknowledgement `{<flag>: true}` (logout, password changed...). */
export function acknowledgement(flag: string): JsonSchema {
  return record({ [flag]: { type: 'boolean', enum: [true] } });
}
