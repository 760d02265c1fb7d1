/**
 * Imported first by each process entry (main.ts), so tracing starts before anything else, and only when the OTEL_*
 * variables ask for it (contract.md 8). The service name tells the core's roles from a connector adapter's process
 * unless OTEL_SERVICE_NAME sets it.
 */
import { startTracing, type Tracing } from './tracing';

function serviceNameOf(argv: readonly string[]): string {
  return argv[0] === 'connector' || argv[0] === 'antifraud' ? `payment-orchestration-adapter-${argv[1] ?? 'sandbox'}` : 'payment-orchestration';
}

export const processTracing: Tracing | null = startTracing(serviceNameOf(process.argv.slice(2)));
