/**
 * The connector accounts' call history (GET /v1/connector-accounts: `health.recentCalls`), written in batches off
 * the payments' own transactions.
 *
 * Why: each payment's outcome unit used to insert its call row, and about one in twenty trimmed the account's
 * history too. Under load those two statements were a seventh of the database's time per payment (the insert and
 * its index entries, and a trim that scans the account's rows), for a diagnostic every payment of the account
 * writes to. Here the calls of a flush window (FLUSH_EVERY_MS) leave as one multi-row insert, and each account is
 * trimmed at most once per TRIM_EVERY_MS.
 *
 * What this gives up: a call is recorded when its flush commits, not with the payment's outcome, so a process that
 * dies loses the calls of its last window (at most FLUSH_EVERY_MS), and the history may show a call whose outcome
 * unit failed (the call was made all the same). Reads in this process see every call recorded before them: those
 * not committed yet are merged from memory (`unwritten`); another process's calls show within a window.
 */
import type { CallRecord } from '../../domain/connector-account/connector-account-health';
import { RECENT_CALLS_WINDOW } from '../../domain/connector-account/connector-account-health';
import type { Transactor } from '../../domain/ports/transactor';
import type { TenantScope } from '../../domain/shared/environment';
import type { Logger } from '../logging/logger';
import { deferWrite } from './mikro-orm-transactor';

/** How long a recorded call waits for its batch. */
export const FLUSH_EVERY_MS = 100;
/** An account's history is trimmed to the displayed window (plus slack) at most this often. */
const TRIM_EVERY_MS = 2_000;
/** A batch leaves at once when this many calls wait. */
const MAX_BATCH = 500;

interface PendingCall {
  readonly accountId: string;
  readonly organizationId: string;
  readonly environment: string;
  readonly record: CallRecord;
}

/**
 * Inserts a batch in the order it was recorded (the history is read newest first by id). The tenant is checked as
 * the single-row insert did: a call names an account of its organization and environment, or is not kept.
 */
const INSERT_CALLS_SQL = `insert into connector_account_health (account_id, kind, result, operation, latency_ms, occurred_at)
  select a.id, 'call', c.result, c.operation, c.latency_ms, c.occurred_at
    from rows from (jsonb_to_recordset(?::jsonb) as (account_id text, organization_id text, environment text, result text, operation text, latency_ms integer, occurred_at timestamptz))
         with ordinality as c(account_id, organization_id, environment, result, operation, latency_ms, occurred_at, n)
    join connector_accounts a on a.id = c.account_id and a.organization_id = c.organization_id and a.environment = c.environment
   order by c.n`;

/**
 * Keeps the account's newest RECENT_CALLS_WINDOW * 2 calls. Rows another transaction holds are skipped, never waited
 * for (two trims of one account in two processes would otherwise queue on each other).
 */
export const TRIM_CALLS_SQL = `delete from connector_account_health where id in (
    select id from connector_account_health where account_id = ? and kind = 'call' and id <= (
      select id from connector_account_health where account_id = ? and kind = 'call' order by id desc offset ? limit 1)
    for update skip locked)`;

export class CallHistoryWriter {
  private pending: PendingCall[] = [];
  /** Batches taken by a flush whose unit has not settled yet. */
  private readonly unsettled = new Set<readonly PendingCall[]>();
  private timer: NodeJS.Timeout | null = null;
  private lastWrite: Promise<void> = Promise.resolve();
  private readonly trimmedAt = new Map<string, number>();

  constructor(
    private readonly transactor: Transactor,
    private readonly logger: Logger,
    private readonly options: { readonly now?: () => number; readonly flushEveryMs?: number } = {},
  ) {}

  record(scope: TenantScope, accountId: string, record: CallRecord): void {
    this.pending.push({ accountId, organizationId: scope.organizationId, environment: scope.environment, record });
    if (this.pending.length >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushEveryMs ?? FLUSH_EVERY_MS).unref();
  }

  /** Writes every call recorded so far; resolves once they are committed (or their batch failed and was logged). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length) this.unsettled.add(batch);
    // One batch at a time, in order.
    this.lastWrite = this.lastWrite.then(() => (batch.length ? this.write(batch).finally(() => this.unsettled.delete(batch)) : undefined));
    return this.lastWrite;
  }

  /**
   * The calls of these accounts recorded here and not committed yet (waiting for their batch, or in a batch being
   * written), newest first. A read merges them rather than flushing first: a flush needs a pooled connection of its
   * own, which a reader inside a unit of work may be holding the last of (embedded mode's pool has one), and then
   * neither ever went on.
   */
  unwritten(accountIds: readonly string[]): Map<string, CallRecord[]> {
    const wanted = new Set(accountIds);
    const found = new Map<string, CallRecord[]>();
    for (const batch of [...this.unsettled, this.pending]) {
      for (const call of batch) {
        if (!wanted.has(call.accountId)) continue;
        const calls = found.get(call.accountId) ?? [];
        calls.unshift(call.record);
        found.set(call.accountId, calls);
      }
    }
    return found;
  }

  stop(): Promise<void> {
    return this.flush();
  }

  private async write(batch: readonly PendingCall[]): Promise<void> {
    const rows = batch.map((c) => ({
      account_id: c.accountId,
      organization_id: c.organizationId,
      environment: c.environment,
      result: c.record.outcome,
      operation: c.record.operation,
      latency_ms: c.record.latencyMs,
      occurred_at: c.record.at.toISOString(),
    }));
    const due = this.accountsDueForTrim(batch);
    try {
      await this.transactor.run(async (tx) => {
        await deferWrite(tx, INSERT_CALLS_SQL, [JSON.stringify(rows)]);
        for (const accountId of due) await deferWrite(tx, TRIM_CALLS_SQL, [accountId, accountId, RECENT_CALLS_WINDOW * 2]);
      });
    } catch (error) {
      // A diagnostic: the payments these calls belong to are recorded already. Logged, never retried forever.
      this.logger.warn({ err: error, calls: batch.length }, 'connector call history could not be written');
    }
  }

  private accountsDueForTrim(batch: readonly PendingCall[]): string[] {
    const now = (this.options.now ?? Date.now)();
    const due: string[] = [];
    for (const { accountId } of batch) {
      if (now - (this.trimmedAt.get(accountId) ?? -Infinity) < TRIM_EVERY_MS) continue;
      this.trimmedAt.set(accountId, now);
      due.push(accountId);
    }
    // Forget accounts not trimmed for long, so the map does not grow with every account ever called.
    if (this.trimmedAt.size > 10_000) for (const [id, at] of this.trimmedAt) if (now - at >= TRIM_EVERY_MS) this.trimmedAt.delete(id);
    return due;
  }
}
