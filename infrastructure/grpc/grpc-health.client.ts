import { makeClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { createGrpcClient, deadlineIn } from './grpc-client';

export type HealthStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

const HealthClient = makeClientConstructor(healthService, 'grpc.health.v1.Health');

/** Asks a server's standard health service (grpc.health.v1.Health/Check); '' means the whole server. */
export async function checkGrpcHealth(address: string, serviceName = '', timeoutMs = 2_000): Promise<HealthStatus> {
  const client = createGrpcClient(HealthClient, address) as unknown as Client & {
    check(
      request: { service: string },
      options: { deadline: Date },
      callback: (error: ServiceError | null, response: { status: HealthStatus }) => void,
    ): void;
  };
  try {
    return await new Promise<HealthStatus>((resolve, reject) =>
      client.check({ service: serviceName }, { deadline: deadlineIn(timeoutMs) }, (error, response) =>
        error ? reject(error) : resolve(response.status),
      ),
    );
  } finally {
    client.close();
  }
}
