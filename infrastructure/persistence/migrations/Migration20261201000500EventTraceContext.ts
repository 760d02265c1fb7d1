import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox row carries the W3C traceparent of the transaction that wrote it (contract.md 8, tracing), so the relay's
 * publish, the consumers and each webhook delivery join the trace of the request that caused the event. Null when
 * tracing is off. A nullable column without default: adding it rewrites nothing.
 */
export class Migration20261201000500EventTraceContext extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table events add column if not exists traceparent text');
  }

  override async down(): Promise<void> {
    this.addSql('alter table events drop column if exists traceparent');
  }
}
