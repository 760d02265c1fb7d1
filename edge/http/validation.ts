/**
 * JSON Schema validation (ajv). The schemas attached to route definitions are the single source for both
 * validation and the OpenAPI document. Objects that declare properties refuse unknown fields unless the
 * schema says otherwise, so "unknown fields rejected" holds by construction.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { HttpError, type ErrorDetail } from './errors';

export type JsonSchema = Record<string, unknown>;

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: coerceTypes ? 'array' : false, strict: true, strictRequired: false, strictTypes: false });
  addFormats(ajv);
  ajv.addVocabulary(['x-secret', 'example']);
  return ajv;
}

const bodyAjv = createAjv(false);
const queryAjv = createAjv(true);

/** Adds `additionalProperties: false` to every object schema that lists properties and says nothing. */
export function closeObjects(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema };
  if (copy.properties && copy.additionalProperties === undefined && !copy.patternProperties) copy.additionalProperties = false;
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions'] as const) {
    const group = copy[key] as Record<string, JsonSchema> | undefined;
    if (group) copy[key] = Object.fromEntries(Object.entries(group).map(([name, child]) => [name, closeObjects(child)]));
  }
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else'] as const) {
    const child = copy[key];
    if (child && typeof child === 'object' && !Array.isArray(child)) copy[key] = closeObjects(child as JsonSchema);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = copy[key] as JsonSchema[] | undefined;
    if (list) copy[key] = list.map(closeObjects);
  }
  return copy;
}

function paramOf(location: string, error: ErrorObject): string {
  let path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, segment) => (/^\d+$/.test(segment) ? `${acc}[${segment}]` : `${acc}.${segment}`), location);
  if (error.keyword === 'required') path += `.${(error.params as { missingProperty: string }).missingProperty}`;
  if (error.keyword === 'additionalProperties') path += `.${(error.params as { additionalProperty: string }).additionalProperty}`;
  return path;
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a recognised field';
    case 'enum':
      return `must be one of: ${((error.params as { allowedValues: unknown[] }).allowedValues).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

export interface CompiledValidator {
  (value: unknown): unknown;
}

/** Compiles a schema into a function that returns the (defaults-filled) value or throws 422. */
export function compileValidator(schema: JsonSchema, location: 'body' | 'query'): CompiledValidator {
  const validate: ValidateFunction = (location === 'body' ? bodyAjv : queryAjv).compile(closeObjects(schema));
  return (value: unknown) => {
    if (validate(value)) return value;
    const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'if');
    const details: ErrorDetail[] = errors.slice(0, 20).map((error) => ({ param: paramOf(location, error), message: messageOf(error) }));
    const first = details[0] ?? { param: location, message: 'is invalid' };
    throw new HttpError('validation_failed', `${first.param} ${first.message}`, { param: first.param, details });
  };
}
