/**
 * The API reference (issue 27 item 4): the OpenAPI document the service serves names every route it registers,
 * gives every request body and success answer an example that holds for its own schema (cards pay with sandbox
 * test tokens, never card data), lists the 4xx answers each operation can give with the contract's error body,
 * describes test tokens, test cards, idempotency and errors, and passes `redocly lint` (redocly.yaml) with no
 * problem at all.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { sharedTestService, type TestService } from '../../support/test-service';
import { SENSITIVE_CARD_FIELDS } from '../../../domain/payment/sensitive-card-data';
import { SANDBOX_SCENARIOS } from '../../../infrastructure/connectors/sandbox/scenarios';
import { SANDBOX_TEST_CARDS } from '../../../infrastructure/connectors/sandbox/sandbox-vault';
import { REFUSALS } from '../../../edge/openapi-errors';

type Schema = Record<string, unknown>;
interface Operation {
  readonly key: string;
  readonly path: string;
  readonly method: string;
  readonly spec: Record<string, any>;
}

const REPOSITORY = path.resolve(__dirname, '../../..');

function operationsOf(document: Record<string, any>): Operation[] {
  return Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, spec]) => ({ key: `${method.toUpperCase()} ${route}`, path: route, method, spec })),
  );
}

/** A validator like the edge's (the same keywords and formats), that reports instead of filling defaults. */
function exampleValidator(document: Record<string, any>) {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const resolve = (schema: Schema): Schema =>
    schema.$ref === '#/components/schemas/Error' ? (document.components.schemas.Error as Schema) : schema;
  return (schema: Schema, example: unknown): string | null => {
    const validate = ajv.compile(resolve(schema));
    return validate(example) ? null : ajv.errorsText(validate.errors);
  };
}

/** Every value under `key` anywhere in `value`. */
function valuesNamed(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesNamed(item, key));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([name, child]) => [...(name === key ? [child] : []), ...valuesNamed(child, key)]);
  }
  return [];
}

function runRedocly(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = path.join(REPOSITORY, 'node_modules/@redocly/cli/bin/cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'lint', file, '--config', path.join(REPOSITORY, 'redocly.yaml'), '--format', 'json'], {
      // Offline: no telemetry, no update check (redocly.yaml says telemetry: off too).
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('API reference: the OpenAPI document', function () {
  this.timeout(120_000);
  let service: TestService;
  let document: Record<string, any>;
  let operations: Operation[];

  before(async () => {
    service = await sharedTestService();
    document = (await service.client().get('/v1/openapi.json')).body;
    operations = operationsOf(document);
  });

  it('documents every route the service registers, and no other', () => {
    const registered = service.service.routes.map((route) => `${route.method.toUpperCase()} ${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    expect(operations.map((operation) => operation.key).sort()).to.deep.equal([...registered].sort());
  });

  it('gives every request body and every JSON success answer an example that validates against its own schema', () => {
    const check = exampleValidator(document);
    const failures: string[] = [];
    let examples = 0;
    for (const operation of operations) {
      const body = operation.spec.requestBody?.content?.['application/json'];
      if (body) {
        examples++;
        if (body.example === undefined) failures.push(`${operation.key} request: no example`);
        else {
          const error = check(body.schema, body.example);
          if (error) failures.push(`${operation.key} request: ${error}`);
        }
      }
      const [status, success] = Object.entries(operation.spec.responses as Record<string, any>).find(([code]) => code.startsWith('2'))!;
      const json = success.content?.['application/json'];
      if (!json) continue;
      examples++;
      if (json.example === undefined) failures.push(`${operation.key} ${status}: no example`);
      else {
        const error = check(json.schema, json.example);
        if (error) failures.push(`${operation.key} ${status}: ${error}`);
      }
    }
    expect(failures).to.deep.equal([]);
    expect(examples).to.be.greaterThan(operations.length);
  });

  it('gives every JSON success answer a schema that names its fields (never a bare object the client cannot type)', () => {
    const untyped = operations.filter((operation) => {
      const [, success] = Object.entries(operation.spec.responses as Record<string, any>).find(([code]) => code.startsWith('2'))!;
      const schema = success.content?.['application/json']?.schema as Schema | undefined;
      return schema !== undefined && schema.properties === undefined && schema.oneOf === undefined && schema.anyOf === undefined && schema.allOf === undefined;
    });
    // response-schemas.test.ts checks a sample of them against the service's real answers.
    expect(untyped.map((operation) => operation.key)).to.deep.equal([]);
    const payment = operations.find((operation) => operation.spec.operationId === 'getPayment')!.spec.responses['200'].content['application/json'].schema;
    expect(payment.required).to.include.members(['id', 'status', 'amount', 'currency', 'clientSecret', 'attempts', 'createdAt']);
  });

  it('answers every 4xx with the contract\'s error body (a shared component), with a valid example of a code it lists', () => {
    const check = exampleValidator(document);
    const failures: string[] = [];
    for (const operation of operations) {
      for (const [status, answer] of Object.entries(operation.spec.responses as Record<string, any>)) {
        if (!status.startsWith('4')) continue;
        const json = answer.content?.['application/json'];
        if (json?.schema?.$ref !== '#/components/schemas/Error') failures.push(`${operation.key} ${status}: not the Error component`);
        const error = json && check(json.schema, json.example);
        if (error) failures.push(`${operation.key} ${status}: ${error}`);
        if (json && !String(answer.description).includes(`\`${json.example.error.code}\``)) failures.push(`${operation.key} ${status}: example code not listed`);
      }
    }
    expect(failures).to.deep.equal([]);
    expect(document.components.schemas.Error.properties.error.required).to.deep.equal(['code', 'message', 'param', 'details', 'requestId']);
  });

  it('lists 401 and 403 for authenticated operations, 404 for those with ids, 409 where an Idempotency-Key is taken, 422 everywhere', () => {
    const missing: string[] = [];
    for (const operation of operations) {
      const statuses = Object.keys(operation.spec.responses);
      const wanted = [
        ...(operation.spec.security.length > 0 ? ['401', '403'] : []),
        ...(operation.path.includes('{') ? ['404'] : []),
        ...((operation.spec.parameters as Array<{ name: string }>).some((parameter) => parameter.name === 'Idempotency-Key') ? ['409'] : []),
        '422',
      ];
      for (const status of wanted) if (!statuses.includes(status)) missing.push(`${operation.key} ${status}`);
    }
    expect(missing).to.deep.equal([]);
    const capture = operations.find((operation) => operation.spec.operationId === 'capturePayment')!;
    expect(capture.spec.responses['409'].description).to.include('`payment_not_capturable`');
  });

  it('names only operations that exist in its table of domain refusals', () => {
    const operationIds = new Set(operations.map((operation) => operation.spec.operationId));
    expect(Object.keys(REFUSALS).filter((operationId) => !operationIds.has(operationId))).to.deep.equal([]);
  });

  it('never shows card data in a request example, and pays with sandbox test tokens', () => {
    const requestExamples = operations.map((operation) => operation.spec.requestBody?.content?.['application/json']?.example).filter(Boolean);
    for (const field of SENSITIVE_CARD_FIELDS) expect(valuesNamed(requestExamples, field), field).to.deep.equal([]);
    const tokens = valuesNamed(requestExamples, 'token');
    expect(tokens).to.not.be.empty;
    for (const token of tokens) expect(token).to.match(/^tok_sandbox_[a-z_]+$/);
  });

  it('offers a createPayment example the service accepts as it is ("Try it out")', async () => {
    const merchant = await service.merchant();
    await merchant.sandbox.post('/v1/connector-accounts', { connectorSlug: 'sandbox', name: 'Reference example', credentials: { merchantId: 'm_reference', apiKey: 'sandbox-key' } });
    const createPayment = operations.find((operation) => operation.spec.operationId === 'createPayment')!;
    const answer = await merchant.sandbox.post('/v1/payments', createPayment.spec.requestBody.content['application/json'].example);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    expect(answer.body.status).to.equal('authorized');
  });

  it('describes the test tokens and cards, idempotency and errors, and every tag', () => {
    const description = document.info.description as string;
    for (const scenario of Object.keys(SANDBOX_SCENARIOS)) expect(description).to.include(`\`tok_sandbox_${scenario}\``);
    for (const number of Object.keys(SANDBOX_TEST_CARDS)) expect(description).to.include(number);
    expect(description).to.include('## Idempotency').and.include('Idempotent-Replayed').and.include('idempotency_conflict');
    expect(description).to.include('## Errors').and.include('sensitive_card_data').and.include('validation_failed');
    const tags = new Map((document.tags as Array<{ name: string; description?: string }>).map((tag) => [tag.name, tag.description]));
    for (const operation of operations) expect(tags.get(operation.spec.tags[0]), operation.spec.tags[0]).to.be.a('string');
  });

  it('passes redocly lint (redocly.yaml) with no errors and no warnings', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    try {
      const file = path.join(directory, 'openapi.json');
      fs.writeFileSync(file, JSON.stringify(document, null, 2));
      const result = await runRedocly(file);
      const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> };
      expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).to.deep.equal([]);
      expect(report.totals).to.include({ errors: 0, warnings: 0 });
      expect(result.code).to.equal(0);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
