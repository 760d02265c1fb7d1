import type { AcquirerGateway } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import { ConnectorFailure } from '../../domain/shared/connector-failure';

type MoneyOperation = 'capture' | 'void' | 'refund';

/**
 * What the next capture, void or refund call of a kind meets:
 * - `lose-answer`: it reaches the sandbox (which executes it), then reports a deadline timeout, as an answer lost on
 *   its way back would;
 * - `unanswered`: a deadline timeout without reaching the sandbox (the request was lost on its way there);
 * - `not-sent`: a technical failure that provably never left the core (nothing executed, outcome known);
 * - `refused`: the acquirer's refusal, without reaching the sandbox;
 * - `hold`: it waits until `release()` before reaching the sandbox; `reached` resolves when it is waiting.
 */
export type OperationFault =
  | 'lose-answer'
  | 'unanswered'
  | 'not-sent'
  | 'refused'
  | { readonly hold: { reached: () => void; released: Promise<void> } };

/** A call held in flight until released. */
export function heldCall(): { fault: OperationFault; reached: Promise<void>; release: () => void } {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { fault: { hold: { reached: reach, released } }, reached, release };
}

/**
 * Wraps the payment pipeline's connector access so that chosen accounts' acquirer stops answering: their
 * authorize calls reach the sandbox adapter (real gRPC) with the sandbox's `timeout` scenario token, so the
 * sandbox sleeps past the caller's deadline and the gateway reports a real deadline timeout. Other accounts
 * are untouched.
 *
 * `injectNext(kind, fault)` makes the next capture, void or refund on any account meet an OperationFault
 * (`loseNextAnswer(kind)`: `lose-answer`); `operationKeys` records the idempotency key of every such call that
 * reached the sandbox.
 */
export class TimeoutInjector {
  readonly accountIds = new Set<string>();
  readonly operationKeys: Array<{ kind: MoneyOperation; idempotencyKey: string }> = [];
  private readonly faults = new Map<MoneyOperation, OperationFault[]>();

  loseNextAnswer(kind: MoneyOperation): void {
    this.injectNext(kind, 'lose-answer');
  }

  /** The next call of `kind` meets `fault` (faults queue up in order, one per call). */
  injectNext(kind: MoneyOperation, fault: OperationFault): void {
    this.faults.set(kind, [...(this.faults.get(kind) ?? []), fault]);
  }

  decorate = (inner: PaymentConnectors): PaymentConnectors => ({
    accounts: (scope) => inner.accounts(scope),
    open: async (scope, accountId) => {
      const opened = await inner.open(scope, accountId);
      if (!opened) return opened;
      const gateway: AcquirerGateway = Object.create(opened.gateway) as AcquirerGateway;
      for (const kind of ['capture', 'void', 'refund'] as const) {
        const call = opened.gateway[kind].bind(opened.gateway) as (input: { idempotencyKey: string }) => ReturnType<AcquirerGateway['refund']>;
        (gateway as unknown as Record<MoneyOperation, typeof call>)[kind] = async (input) => {
          const fault = this.faults.get(kind)?.shift();
          if (fault === 'unanswered') throw new ConnectorFailure('timeout', 'deadline exceeded (injected: the request was lost)', { outcomeUnknown: true });
          if (fault === 'not-sent') throw new ConnectorFailure('technical', 'connection refused (injected)', { outcomeUnknown: false });
          if (fault === 'refused') return { status: 'declined', rawCode: '57', message: 'operation not permitted (injected)' };
          if (typeof fault === 'object') {
            fault.hold.reached();
            await fault.hold.released;
          }
          this.operationKeys.push({ kind, idempotencyKey: input.idempotencyKey });
          const output = await call(input);
          if (fault === 'lose-answer') throw new ConnectorFailure('timeout', 'deadline exceeded (injected: the answer was lost)', { outcomeUnknown: true });
          return output;
        };
      }
      if (this.accountIds.has(accountId)) gateway.authorize = (input) => opened.gateway.authorize({ ...input, source: { ...input.source, token: 'tok_sandbox_timeout' } });
      return { ...opened, gateway };
    },
  });
}
