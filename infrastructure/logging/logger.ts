/**
 * JSON logs (pino). Secrets are redacted by path wherever they appear in a logged object, and request
 * logs are children carrying the request id, so every line of one request can be found together.
 */
import pino, { Logger } from 'pino';
import { DriverException } from '@mikro-orm/core';
import { DatabaseError } from 'pg';
import { traceLogFields } from '../tracing/tracing';

export type { Logger } from 'pino';

/** Fields that must never reach a log line, at any depth we log objects. */
const REDACTED_PATHS = [
  'authorization', 'Authorization', '*.authorization', '*.Authorization',
  'headers.authorization', 'req.headers.authorization', 'req.headers["service-client-secret"]',
  'secret', '*.secret', 'apiKey', '*.apiKey', 'password', '*.password', 'newPassword', '*.newPassword',
  'currentPassword', '*.currentPassword', 'credentials', '*.credentials', 'clientSecret', '*.clientSecret',
  'refreshToken', '*.refreshToken', 'accessToken', '*.accessToken', 'mfaCode', '*.mfaCode',
  'recoveryCode', '*.recoveryCode', 'manualKey', '*.manualKey', 'totpSecret', '*.totpSecret',
  'resetToken', '*.resetToken', 'token', '*.token', 'cvv', '*.cvv', 'number', 'card.number',
];

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'payment-orchestration' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
      formatters: { level: (label) => ({ level: label }) },
      // trace_id and span_id of the active span, when tracing is on (contract.md 8).
      mixin: traceLogFields,
    },
    destination,
  );
}

/**
 * A database error's message and fields can hold the statement and its values (MikroORM puts the SQL first in the
 * message; PostgreSQL's detail and where quote rows). They are logged by their codes only, with stack frames
 * without the message line; an error caused by one keeps its own message and has that cause logged the same way.
 */
function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return pino.stdSerializers.err(error as Error);
  if (isDatabaseError(error)) return databaseErrorFields(error);
  if (!causeChain(error).some(isDatabaseError)) return pino.stdSerializers.err(error);
  return { type: error.name, message: error.message, stack: stackFrames(error.stack), cause: serializeError(error.cause) };
}

function isDatabaseError(error: unknown): boolean {
  return error instanceof DriverException || error instanceof DatabaseError;
}

function causeChain(error: Error): unknown[] {
  const chain: unknown[] = [];
  for (let cause = error.cause; cause !== undefined && chain.length < 10; cause = (cause as Error).cause) chain.push(cause);
  return chain;
}

const DATABASE_ERROR_FIELDS = ['code', 'errno', 'sqlState', 'severity', 'routine', 'schema', 'table', 'column', 'constraint', 'dataType'] as const;

function databaseErrorFields(error: Error): Record<string, unknown> {
  const source = error as unknown as Record<string, unknown>;
  const fields: Record<string, unknown> = { type: error.name };
  for (const name of DATABASE_ERROR_FIELDS) if (source[name] !== undefined && source[name] !== null) fields[name] = source[name];
  fields.message = `database error${typeof source.code === 'string' ? ` ${source.code}` : ''} (statement and values not logged)`;
  fields.stack = stackFrames(error.stack);
  return fields;
}

/** The stack's frames only: its first lines repeat the message. */
function stackFrames(stack: string | undefined): string {
  return (stack ?? '').split('\n').filter((line) => line.trim().startsWith('at ')).join('\n');
}
