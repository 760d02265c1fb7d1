import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

/**
 * What a partner team supplies to run the connector contract against its adapter: credentials in the three states
 * the core meets (working, refused by the acquirer, acquirer unreachable), a test token per scenario, and the
 * capabilities whose cases should run. Written as JSON so an adapter in any language can ship one
 * (docs/connectors.md, "The fixture file").
 */
export interface ConnectorContractFixture {
  readonly credentials: FixtureCredentials;
  /** Credentials the acquirer refuses: VerifyCredentials answers INVALID, money calls fail technically. */
  readonly invalidCredentials: FixtureCredentials;
  /** Credentials with which the acquirer cannot be reached: VerifyCredentials answers UNREACHABLE. */
  readonly unreachableCredentials: FixtureCredentials;
  readonly tokens: {
    readonly approved: string;
    /** Each decline token and the raw code the acquirer answers for it. */
    readonly declines: ReadonlyArray<{ readonly token: string; readonly rawCode: string }>;
    /** A token the acquirer fails to process: a gRPC status other than DEADLINE_EXCEEDED, nothing charged. */
    readonly processingError: string;
    /** A token the acquirer never answers in time: the adapter must let the call pass its deadline. */
    readonly timeout: string;
    /** A card whose 3-D Secure authentication asks for a challenge (needed when three_ds is declared). */
    readonly threeDsChallenge?: string;
  };
  /**
   * The capabilities to test; the adapter's Describe must declare exactly these, so no declared capability goes
   * untested. Omitted: whatever Describe declares.
   */
  readonly capabilities?: readonly string[];
  /** Deadline of ordinary calls, in ms (default 5000): generous, so a busy machine does not fail the suite. */
  readonly deadlineMs?: number;
  /** Deadline of the call made with the timeout token, in ms (default 1000): the adapter must not answer within it. */
  readonly timeoutDeadlineMs?: number;
}

export interface FixtureCredentials {
  /** Every credential field by name, as the core sends them in `Credentials.secrets`. */
  readonly secrets: Readonly<Record<string, string>>;
  /** The account's config, sent as `Credentials.config_json`. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** Capabilities the contract has cases for; any other declared capability has nothing of its own to test. */
export const TESTED_CAPABILITIES = [
  'card',
  'debit_card',
  'partial_capture',
  'refund',
  'split',
  'zero_auth',
  'pix',
  'boleto',
  'browser_tokenization',
  'three_ds',
] as const;

const credentialsSchema = {
  type: 'object',
  required: ['secrets'],
  additionalProperties: false,
  properties: {
    secrets: { type: 'object', additionalProperties: { type: 'string' } },
    config: { type: 'object' },
  },
} as const;

const nonEmpty = { type: 'string', minLength: 1 } as const;

const FIXTURE_SCHEMA = {
  type: 'object',
  required: ['credentials', 'invalidCredentials', 'unreachableCredentials', 'tokens'],
  additionalProperties: false,
  properties: {
    $comment: { type: 'string' },
    credentials: credentialsSchema,
    invalidCredentials: credentialsSchema,
    unreachableCredentials: credentialsSchema,
    tokens: {
      type: 'object',
      required: ['approved', 'declines', 'processingError', 'timeout'],
      additionalProperties: false,
      properties: {
        approved: nonEmpty,
        declines: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['token', 'rawCode'],
            additionalProperties: false,
            properties: { token: nonEmpty, rawCode: nonEmpty },
          },
        },
        processingError: nonEmpty,
        timeout: nonEmpty,
        threeDsChallenge: nonEmpty,
      },
    },
    capabilities: { type: 'array', items: nonEmpty, uniqueItems: true },
    deadlineMs: { type: 'integer', minimum: 100 },
    timeoutDeadlineMs: { type: 'integer', minimum: 50 },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile<ConnectorContractFixture>(FIXTURE_SCHEMA);

/** Thrown for a fixture the runner cannot use; its message says which field and why. */
export class FixtureError extends Error {}

/** Checks a parsed fixture; `source` names it in error messages. */
export function parseFixture(value: unknown, source: string): ConnectorContractFixture {
  if (validate(value)) {
    if (value.capabilities?.includes('three_ds') && !value.tokens.threeDsChallenge) {
      throw new FixtureError(`${source}: tokens.threeDsChallenge is required when three_ds is tested`);
    }
    return value;
  }
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  throw new FixtureError(`${source} is not a valid connector contract fixture: ${problems.join('; ')}`);
}

export function loadFixture(path: string): ConnectorContractFixture {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new FixtureError(`Cannot read the fixture ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(`The fixture ${path} is not JSON: ${(error as Error).message}`);
  }
  return parseFixture(parsed, path);
}
