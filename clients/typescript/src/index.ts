/**
 * Typed client of the Payment Orchestration API. The types (src/schema.ts) are generated from the service's
 * OpenAPI document (openapi.json) by openapi-typescript; requests go through openapi-fetch, so every path,
 * parameter, body and answer is checked by the compiler against the document.
 *
 *   const api = createApiClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.API_KEY! });
 *   const { data, error } = await api.POST('/v1/payments', { body: { amount: 1500, card: { token: 'tok_sandbox_approved' } } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service answers, e.g. http://127.0.0.1:8080 (no trailing /v1: the paths carry it). */
  readonly baseUrl: string;
  /** sk_sandbox_... or sk_live_...: sent as Authorization: Bearer on every request. */
  readonly apiKey?: string;
}

export type ApiClient = Client<paths>;

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { apiKey, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}), ...(headers as Record<string, string> | undefined) },
  });
}

/** The contract's error body (every 4xx and 5xx answer). */
export type ApiError = components['schemas']['Error'];

/** The JSON answer of an operation for a status, e.g. `ResponseOf<'createPayment', 201>`. */
export type ResponseOf<Operation extends keyof operations, Status extends number> = operations[Operation]['responses'] extends infer Responses
  ? Status extends keyof Responses
    ? Responses[Status] extends { content: { 'application/json': infer Body } }
      ? Body
      : never
    : never
  : never;

/** The JSON request body of an operation, e.g. `RequestOf<'createPayment'>`. */
export type RequestOf<Operation extends keyof operations> = operations[Operation] extends { requestBody?: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

export type Payment = ResponseOf<'createPayment', 201>;
export type PaymentView = ResponseOf<'getPayment', 200>;
export type Event = ResponseOf<'getEvent', 200>;
