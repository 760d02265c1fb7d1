import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ConnectorSchemaValidator } from '../../domain/ports/connector-catalog';

/**
 * Validates credentials and config against the JSON Schemas adapters publish. `x-secret` (and any other
 * annotation an adapter adds) is allowed; compiled validators are cached per schema text.
 */
export class AjvConnectorSchemaValidator implements ConnectorSchemaValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    addFormats(this.ajv);
    this.ajv.addKeyword({ keyword: 'x-secret', schemaType: 'boolean' });
  }

  validate(schema: object, value: unknown, paramPrefix: string): Array<{ param: string; message: string }> {
    const key = JSON.stringify(schema);
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.cache.set(key, validate);
    }
    // Validate a copy: defaults in the schema describe behaviour, they are not written into what is stored.
    if (validate(structuredClone(value))) return [];
    return (validate.errors ?? []).map((error) => toDetail(error, paramPrefix));
  }
}

function toDetail(error: ErrorObject, prefix: string): { param: string; message: string } {
  const path = error.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String((error.params as { additionalProperty: string }).additionalProperty));
  const param = [prefix, ...path].join('.');
  const message =
    error.keyword === 'required'
      ? `${param} is required`
      : error.keyword === 'additionalProperties'
        ? `${param} is not a field of this connector`
        : `${param} ${error.message ?? 'is invalid'}`;
  return { param, message };
}
