import type { Client, ServiceError } from '@grpc/grpc-js';
import { ConnectorFailure } from '../../domain/shared/connector-failure';
import type {
  ConnectorCredentials,
  ConnectorDescription,
  ConnectorJsonSchema,
  ConnectorKind,
  VerifyCredentialsOutput,
} from '../../domain/ports/connector-description';
import {
  VerifyCredentialsResponse_Result,
  type Credentials,
  type DescribeResponse,
  type VerifyCredentialsResponse,
} from './generated/connector/v1/connector';
import { deadlineMetadata } from './call-deadline';
import { callUnary } from './grpc-client';
import { classifyGrpcError, isServiceError } from './grpc-errors';

/** Default deadline of a connector call; an answer later than this is treated as "outcome unknown". */
export const DEFAULT_CONNECTOR_DEADLINE_MS = 5_000;

export function toProtoCredentials(credentials: ConnectorCredentials): Credentials {
  return { secrets: { ...credentials.values }, configJson: JSON.stringify(credentials.config ?? {}) };
}

function parseSchema(json: string, field: string, slug: string): ConnectorJsonSchema {
  if (!json) return { type: 'object', properties: {}, required: [] };
  try {
    const parsed = JSON.parse(json) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as ConnectorJsonSchema;
  } catch {
    // fall through: an adapter that sends a broken schema is misconfigured, which is a technical failure
  }
  throw new ConnectorFailure('technical', `Connector ${slug} described an invalid ${field}`, { connectorSlug: slug });
}

export function fromProtoDescription(response: DescribeResponse, expectedKind: ConnectorKind): ConnectorDescription {
  const kind = (response.kind || expectedKind) as ConnectorKind;
  return {
    slug: response.slug,
    name: response.name,
    kind,
    capabilities: [...response.capabilities],
    credentialSchema: parseSchema(response.credentialSchemaJson, 'credentialSchema', response.slug),
    configSchema: parseSchema(response.configSchemaJson, 'configSchema', response.slug),
    available: response.available,
  };
}

export function fromProtoVerify(response: VerifyCredentialsResponse): VerifyCredentialsOutput {
  switch (response.result) {
    case VerifyCredentialsResponse_Result.VALID:
      return { result: 'valid', message: response.message };
    case VerifyCredentialsResponse_Result.INVALID:
      return { result: 'invalid', message: response.message };
    default:
      return { result: 'unreachable', message: response.message || 'The connector could not verify the credentials' };
  }
}

/** Turns a gRPC failure into the domain's ConnectorFailure, keeping the transport labels as flags. */
export function toConnectorFailure(error: unknown, slug: string | undefined, rpc: string): Error {
  if (error instanceof ConnectorFailure) return error;
  if (!isServiceError(error)) return error instanceof Error ? error : new Error(String(error));
  const classified = classifyGrpcError(error as ServiceError);
  const timedOut = classified.codeName === 'DEADLINE_EXCEEDED';
  const who = slug ? `connector ${slug}` : 'connector';
  return new ConnectorFailure(
    timedOut ? 'timeout' : 'technical',
    timedOut ? `${rpc} on ${who} did not answer within the deadline` : `${rpc} on ${who} failed: ${classified.codeName} ${classified.details}`,
    {
      outcomeUnknown: classified.labels.has('outcomeUnknown'),
      nothingSent: classified.labels.has('nothingSent'),
      retryable: classified.labels.has('retryable'),
      transportCode: classified.codeName,
      ...(slug ? { connectorSlug: slug } : {}),
    },
  );
}

/**
 * One unary call with the gateway's deadline, failures translated to ConnectorFailure. The deadline also travels
 * as an absolute time (`connector-deadline-at`), so an adapter that reads the call late (frozen) executes nothing.
 */
export async function connectorCall<Req, Res>(
  client: Client,
  method: Parameters<typeof callUnary<Req, Res>>[1],
  request: Req,
  deadlineMs: number,
  slug: string | undefined,
  rpc: string,
): Promise<Res> {
  try {
    return await callUnary(client, method, request, deadlineMs, deadlineMetadata(new Date(Date.now() + deadlineMs)));
  } catch (error) {
    throw toConnectorFailure(error, slug, rpc);
  }
}
