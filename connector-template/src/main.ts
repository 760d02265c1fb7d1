import { startTemplateAdapter } from './server';

/** Runs the adapter until SIGINT/SIGTERM: PORT (default 50061, 0 for any free port) and HOST (default 127.0.0.1). */
async function main(): Promise<void> {
  const port = Number(process.env['PORT'] ?? 50061);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${process.env['PORT']}`);
  const running = await startTemplateAdapter({ port, host: process.env['HOST'] ?? '127.0.0.1' });
  console.log(`template acquirer adapter listening on ${running.address}`);
  const stop = () => void running.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`The adapter could not start: ${(error as Error).message}`);
  process.exit(1);
});
