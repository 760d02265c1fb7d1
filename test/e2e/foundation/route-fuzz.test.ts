import { expect } from 'chai';
import { ManualClock } from '../../../infrastructure/clock/system-clock';
import { ApiClient, type ApiResult } from '../../support/api-client';
import { startTestService, type Merchant, type TestService } from '../../support/test-service';
import { registerAndEnroll } from '../identity/identity-support';

/**
 * Every operation of the served OpenAPI document (built from the same route definitions the edge validates with)
 * gets text PostgreSQL cannot store (a NUL, an unpaired UTF-16 surrogate) in its body strings and map keys, its
 * query parameters and its path parameters, with and without an Idempotency-Key. No answer may be a 5xx, every
 * refusal has the contract's error shape, and a retry of the same key is never stuck at 409 (issue 22 item 1).
 * Bounded: a few requests per operation, refused at the edge before any database work.
 */
type Schema = Record<string, any>;
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters: Array<{ name: string; in: string; schema?: Schema }>;
  readonly body?: Schema;
  readonly idempotent: boolean;
}

const NUL = 'fuzz\u0000nul';
const LONE_SURROGATE = 'fuzz \ud83d cut';
const BAD_KEY = 'key\u0000\udc00';

/**
 * A value shaped by `schema`, with `text` in every free-text string and `key` as an extra key of every map; enums and
 * formats get valid values (so the text reaches as far as it can), unless `everywhere` (a body with no free text).
 */
function sample(schema: Schema | undefined, text: string, key: string, everywhere = false): unknown {
  if (!schema || typeof schema !== 'object') return text;
  if (!everywhere && schema.const !== undefined) return schema.const;
  if (!everywhere && Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  // Alternatives beside properties (`oneOf: [{required: [a]}, {required: [b]}]`) only choose among them.
  if (alternatives && !schema.type && !schema.properties) return sample(alternatives.find((option: Schema) => option.type !== 'null') ?? alternatives[0], text, key, everywhere);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Schema) => sample(part, text, key, everywhere)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties || schema.additionalProperties || schema.patternProperties ? 'object' : 'string')) {
    case 'integer':
    case 'number':
      return Math.max(Number(schema.minimum ?? 1), Number(schema.exclusiveMinimum ?? 0) + 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, text, key, everywhere));
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) value[name] = sample(property, text, key, everywhere);
      // A map (free keys): its keys are stored too.
      if (schema.additionalProperties !== false || !schema.properties) value[key] = sample(typeof schema.additionalProperties === 'object' ? schema.additionalProperties : { type: 'string' }, text, key, everywhere);
      return value;
    }
    default:
      if (everywhere) return text;
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'date') return '2030-01-01';
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/fuzz';
      return text.padEnd(schema.minLength ?? 0, 'x');
  }
}

function operationsOf(document: { paths: Record<string, Record<string, Schema>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content?.['application/json']?.schema,
      idempotent: (operation.parameters ?? []).some((parameter: { name: string }) => parameter.name === 'Idempotency-Key'),
    })),
  );
}

/** `/v1/payments/{id}/capture` with each path parameter replaced (`x_1` unless given). */
function pathWith(operation: Operation, values: Record<string, string> = {}): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x_1');
}

describe('route fuzz: text the database cannot store, on every operation of the OpenAPI document', function () {
  this.timeout(120_000);
  let service: TestService;
  let merchant: Merchant;
  let session: ApiClient;
  let operations: Operation[];
  const clock = new ManualClock(new Date(Math.ceil(Date.now() / 30_000) * 30_000 + 1_000));
  const answers: Array<{ what: string; result: ApiResult }> = [];
  let pathCounter = 0;

  before(async () => {
    service = await startTestService({ clock, transport: 'in-process' });
    merchant = await service.merchant('Fuzz');
    const owner = await registerAndEnroll(service.client(), clock);
    session = service.client(owner.accessToken);
    operations = operationsOf((await service.client().get('/v1/openapi.json')).body);
  });
  after(() => service?.stop());

  /** Sends with the API key; a route only a dashboard session may call (403 to a key) is sent again with the session. */
  async function send(what: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResult> {
    let result = await merchant.sandbox.request(method, path, body, headers);
    if (result.status === 403 && /dashboard session/.test(result.body?.error?.message ?? '')) result = await session.request(method, path, body, headers);
    answers.push({ what, result });
    return result;
  }

  it('covers the whole document', () => {
    expect(operations.length).to.be.greaterThan(40);
    expect(operations.some((operation) => operation.body)).to.equal(true);
  });

  it('never answers 5xx to such text in body strings or map keys, with or without an Idempotency-Key, and frees the key', async () => {
    const variants: Array<[string, string, string]> = [
      ['NUL in strings', NUL, 'fuzz_key'],
      ['lone surrogate in strings', LONE_SURROGATE, 'fuzz_key'],
      ['NUL and lone surrogate in map keys', 'fuzz', BAD_KEY],
    ];
    for (const operation of operations.filter((candidate) => candidate.body)) {
      for (const [name, text, key] of variants) {
        const carries = (value: unknown) => JSON.stringify(value).includes(JSON.stringify(text === 'fuzz' ? key : text).slice(1, -1));
        let body = sample(operation.body, text, key) as Record<string, unknown>;
        if (!carries(body)) body = sample(operation.body, text, key, true) as Record<string, unknown>;
        // A body of numbers only ({version}) still gets the text, as a field it does not know.
        if (!carries(body) && body && typeof body === 'object' && !Array.isArray(body)) body.fuzz = text;
        // Even a body with no map carries the key at its top level.
        if (key === BAD_KEY && body && typeof body === 'object' && !Array.isArray(body)) body[key] = 'fuzz';
        expect(carries(body), `${operation.method} ${operation.path}: the sample carries the text`).to.equal(true);
        const what = `${operation.method} ${operation.path}: ${name}`;
        // A path of its own per variant: the public routes count every request per payment (5 to 10 an hour), and
        // the variants of one operation must not spend each other's allowance.
        const path = pathWith(operation, Object.fromEntries([...operation.path.matchAll(/\{([^}]+)\}/g)].map(([, param]) => [param, `x_${++pathCounter}`])));
        await send(what, operation.method, path, body);
        const headers = { 'Idempotency-Key': `fuzz-${operation.method}-${operation.path}-${name}-${Date.now()}` };
        const first = await send(`${what} (Idempotency-Key)`, operation.method, path, body, headers);
        const retry = await send(`${what} (same Idempotency-Key again)`, operation.method, path, body, headers);
        expect(retry.status, `${what}: the retry is stuck (${retry.text})`).not.to.equal(409);
        expect(retry.status, what).to.equal(first.status);
      }
    }
  });

  it('never answers 5xx to such text in a query parameter value or name', async () => {
    for (const operation of operations) {
      const names = [...operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name), 'fuzz'];
      for (const name of names) {
        for (const [label, encoded] of [['NUL', '%00'], ['NUL inside', 'a%00b']] as const) {
          await send(`${operation.method} ${operation.path}?${name}: ${label}`, operation.method, `${pathWith(operation)}?${encodeURIComponent(name)}=${encoded}`);
        }
      }
      await send(`${operation.method} ${operation.path}: NUL in a query name`, operation.method, `${pathWith(operation)}?a%00b=1`);
      // Invalid UTF-8 is read as U+FFFD, storable: only sent where the request reads and changes nothing.
      if (operation.method === 'GET') {
        for (const name of names) await send(`${operation.method} ${operation.path}?${name}: %ED%A0%80`, 'GET', `${pathWith(operation)}?${encodeURIComponent(name)}=%ED%A0%80`);
      }
    }
  });

  it('never answers 5xx to such text in a path parameter, and refuses a NUL there with 400', async () => {
    for (const operation of operations) {
      const names = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      for (const name of names) {
        const what = `${operation.method} ${operation.path} {${name}}`;
        const body = operation.body ? {} : undefined;
        const refused = await send(`${what}: NUL`, operation.method, pathWith(operation, { [name]: 'x_%00' }), body);
        expect(refused.status, `${what}: ${refused.text}`).to.equal(400);
        expect(refused.body.error.param).to.equal(`path.${name}`);
        if (operation.method === 'GET') await send(`${what}: %ED%A0%80`, 'GET', pathWith(operation, { [name]: '%ED%A0%80' }));
      }
    }
  });

  it('answered no 5xx, each refusal in the error shape, every API answer and page with no-store, every answer with nosniff', () => {
    expect(answers.length).to.be.greaterThan(300);
    const failures = answers.filter(({ result }) => result.status >= 500).map(({ what, result }) => `${what} -> ${result.status} ${result.text.slice(0, 200)}`);
    expect(failures, failures.join('\n')).to.deep.equal([]);
    for (const { what, result } of answers) {
      if (result.status >= 400) {
        expect(result.body?.error, `${what}: ${result.text.slice(0, 200)}`).to.include.keys(['code', 'message', 'param', 'details', 'requestId']);
        expect(JSON.stringify(result.body), what).not.to.match(/\\u0000|\\ud[89ab]/i);
      }
      // API answers and pages are never cached; a public static asset (the checkout's script and style) may be.
      const type = result.headers.get('content-type') ?? '';
      if (/json|html/.test(type) || result.status >= 400) expect(result.headers.get('cache-control'), what).to.equal('no-store');
      else expect(result.headers.get('cache-control'), what).to.match(/^(no-store|public, max-age=\d+)$/);
      expect(result.headers.get('x-content-type-options'), what).to.equal('nosniff');
    }
  });
});
