/**
 * The bench's yardstick: bare Koa on the same machine, with a read route and a write route that does one
 * INSERT into PostgreSQL. Whatever the service adds (validation, auth, idempotency, outbox, gRPC) is
 * measured against this.
 */
import http from 'node:http';
import Koa from 'koa';
import pg from 'pg';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 10 }) : null;
  if (pool) await pool.query('create table if not exists bench_baseline (id bigserial primary key, amount int8 not null, created_at timestamptz not null default now())');
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path === '/ping') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/write' && ctx.method === 'POST' && pool) {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { amount?: number };
      const result = await pool.query('insert into bench_baseline (amount) values ($1) returning id', [body.amount ?? 1]);
      ctx.status = 201;
      ctx.body = { id: result.rows[0].id };
      return;
    }
    ctx.status = 404;
  });
  const server = http.createServer(app.callback());
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`listening ${address.port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => void pool?.end().then(() => process.exit(0))));
}

void main();
