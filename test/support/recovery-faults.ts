import type { AcquirerGateway, AuthorizeInput, AuthorizeOutput } from '../../domain/ports/acquirer-gateway';
import type { PaymentConnectors } from '../../domain/ports/payment-connectors';
import { ConnectorFailure } from '../../domain/shared/connector-failure';

export interface CallResult {
  readonly accountId: string;
  readonly key: string;
  readonly paymentId: string;
  readonly output?: AuthorizeOutput;
  readonly error?: unknown;
}

/**
 * Test-only faults on the payment pipeline's connector access (every call still reaches the sandbox adapter over
 * real gRPC):
 *  - `failing`: authorize sends the sandbox `processing_error` token (technical failure, outcome known);
 *  - `timingOut`: authorize sends the `timeout` token (the sandbox sleeps past the deadline; real gRPC timeout);
 *  - `lateApproval`: the FIRST authorize of each idempotency key times out like `timingOut`, later ones with the
 *    same key go through with the real token: an acquirer that authorized although the caller gave up;
 *  - `droppingAfterSend`: the FIRST authorize of each idempotency key reaches the sandbox (which acts on it), then
 *    fails as a connection dropped before the answer would (technical, outcome unknown); later ones go through;
 *  - `crashAfterNextCall()`: the next authorize reaches the sandbox, then never returns to the caller until
 *    released: the process "died" between the connector call and tx2.
 * `calls` lists every authorize sent, with its idempotency key.
 */
export class RecoveryFaults {
  readonly failing = new Set<string>();
  readonly timingOut = new Set<string>();
  readonly lateApproval = new Set<string>();
  readonly droppingAfterSend = new Set<string>();
  readonly calls: Array<{ accountId: string; key: string; token: string }> = [];
  private readonly seenKeys = new Set<string>();
  private crash: { accountId?: string; reached: (r: CallResult) => void; released: Promise<void> } | null = null;

  /** Only the next call to `accountId` (default: to any account) "crashes". */
  crashAfterNextCall(accountId?: string): { reached: Promise<CallResult>; release(): void } {
    let reached!: (r: CallResult) => void;
    let release!: () => void;
    const reachedPromise = new Promise<CallResult>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.crash = { ...(accountId ? { accountId } : {}), reached, released };
    return { reached: reachedPromise, release };
  }

  callsWithKey(key: string): number {
    return this.calls.filter((c) => c.key === key).length;
  }

  private readonly droppedKeys = new Set<string>();

  private firstTimeDropped(key: string): boolean {
    if (this.droppedKeys.has(key)) return false;
    this.droppedKeys.add(key);
    return true;
  }

  private tokenFor(accountId: string, input: AuthorizeInput): string {
    if (this.failing.has(accountId)) return 'tok_sandbox_processing_error';
    if (this.timingOut.has(accountId)) return 'tok_sandbox_timeout';
    if (this.lateApproval.has(accountId)) {
      const first = !this.seenKeys.has(input.idempotencyKey);
      this.seenKeys.add(input.idempotencyKey);
      if (first) return 'tok_sandbox_timeout';
    }
    return input.source.token;
  }

  decorate = (inner: PaymentConnectors): PaymentConnectors => ({
    accounts: (scope) => inner.accounts(scope),
    open: async (scope, accountId) => {
      const opened = await inner.open(scope, accountId);
      if (!opened) return opened;
      const gateway: AcquirerGateway = Object.create(opened.gateway) as AcquirerGateway;
      gateway.authorize = async (input) => {
        const token = this.tokenFor(accountId, input);
        this.calls.push({ accountId, key: input.idempotencyKey, token });
        const sent = opened.gateway.authorize({ ...input, source: { ...input.source, token } });
        if (this.droppingAfterSend.has(accountId) && this.firstTimeDropped(input.idempotencyKey)) {
          await sent;
          throw new ConnectorFailure('technical', 'Authorize: connection reset before the answer (injected)', { outcomeUnknown: true });
        }
        const crash = this.crash;
        if (!crash || (crash.accountId && crash.accountId !== accountId)) return sent;
        this.crash = null;
        let result: CallResult;
        try {
          result = { accountId, key: input.idempotencyKey, paymentId: input.paymentId, output: await sent };
        } catch (error) {
          result = { accountId, key: input.idempotencyKey, paymentId: input.paymentId, error };
        }
        crash.reached(result);
        await crash.released;
        if (result.error) throw result.error;
        return result.output!;
      };
      return { ...opened, gateway };
    },
  });
}
