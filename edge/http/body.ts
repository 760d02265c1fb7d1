import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors';

/** Request bodies above this size are refused before parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** JSON nested deeper than this is refused: no legitimate request comes close, and validators recurse. */
export const MAX_JSON_DEPTH = 32;
/**
 * The media types a request body may be declared as (matched by Koa's `ctx.is`, parameters such as charset aside):
 * JSON, and the structured-syntax `+json` types (`application/merge-patch+json`). Anything else is 415: a form or
 * text body is not read as JSON on a guess, so what a client meant is never silently misread.
 */
export const JSON_BODY_TYPES = ['application/json', '+json'];

export async function readRawBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    throw new HttpError('payload_too_large', `Request body exceeds ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      request.resume();
      throw new HttpError('payload_too_large', `Request body exceeds ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function depthOf(value: unknown): number {
  // Iterative so a hostile body cannot overflow the stack here.
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) max = depth;
    if (max > MAX_JSON_DEPTH) return max;
    for (const child of Object.values(current as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Parses a JSON request body; an empty body is an empty object (optional bodies). */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HttpError('invalid_json', 'The request body is not valid JSON');
  }
  if (depthOf(parsed) > MAX_JSON_DEPTH) {
    throw new HttpError('invalid_json', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return parsed;
}
