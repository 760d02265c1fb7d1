/**
 * Runs one connector adapter alone (distributed mode): `main.js connector sandbox` or
 * `main.js antifraud sandbox-antifraud`, listening on PORT (default 50051). The adapter modules register
 * their starters in `ADAPTER_STARTERS` below.
 */
import { starterWithEnv } from './connector-process';

export type AdapterStarter = (options: { port: number; host: string }) => Promise<{ port: number; stop(): Promise<void> }>;

export const ADAPTER_STARTERS: Record<string, () => Promise<AdapterStarter>> = {
  sandbox: async () => starterWithEnv('sandbox'),
  'sandbox-antifraud': async () => starterWithEnv('sandbox-antifraud'),
};

export async function runConnectorProcess(slug: string): Promise<void> {
  const load = ADAPTER_STARTERS[slug];
  if (!load) {
    console.error(`no adapter named "${slug}"; known: ${Object.keys(ADAPTER_STARTERS).join(', ') || 'none'}`);
    process.exit(2);
  }
  const start = await load();
  const port = Number(process.env.PORT ?? 50051);
  const host = process.env.HOST ?? '127.0.0.1';
  const adapter = await start({ port, host });
  console.log(JSON.stringify({ level: 'info', msg: 'connector adapter listening', slug, host, port: adapter.port }));
  const stop = async () => {
    await adapter.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
