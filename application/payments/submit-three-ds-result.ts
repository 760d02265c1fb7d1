/**
 * The buyer's 3-D Secure result (spec: POST /v1/public/payments/{id}/three-ds): valid only while the payment waits
 * in requires_action at a three_ds node and before the authentication deadline. The card network's ECI decides the
 * node's exit (domain/payment/three-ds-eci.ts); the run resumes through ResumeFlowRun, and an authenticated result's
 * CAVV and XID ride along to the acquirer in memory, never stored. Answers the payment as it ended: 409 when it does
 * not await 3DS, 410 once the authentication time is over (the payment is closed, by the waits worker or here).
 */
import type { PaymentPrimitives } from '../../domain/payment/payment';
import { awaitsThreeDs, isThreeDsExpired } from '../../domain/payment/payment-three-ds';
import { threeDsExitOf, type ThreeDsOutcome } from '../../domain/payment/three-ds-eci';
import type { ThreeDsAuthentication } from '../../domain/ports/acquirer-gateway';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { PaymentDeps } from './payment-deps';
import type { ResumeFlowRun } from './resume-flow-run';

export interface ThreeDsResultCommand {
  readonly scope: TenantScope;
  readonly paymentId: string;
  readonly outcome: ThreeDsOutcome;
  readonly eci?: string;
  readonly cavv?: string;
  readonly xid?: string;
  readonly version?: string;
  readonly referenceId?: string;
}

export class SubmitThreeDsResult {
  constructor(
    private readonly deps: PaymentDeps,
    private readonly resume: ResumeFlowRun,
  ) {}

  async execute(command: ThreeDsResultCommand): Promise<PaymentPrimitives> {
    const { scope, paymentId } = command;
    const p = (await this.read(scope, paymentId)).toPrimitives();
    if (p.threeDs?.status === 'expired') throw authenticationOver(paymentId);
    const nodeId = p.flowRun?.waitingFor?.kind === 'three_ds_result' ? p.flowRun.waitingFor.nodeId : null;
    if (!awaitsThreeDs(p) || !nodeId) throw new DomainError('invalid_state', `Payment ${paymentId} does not await a 3DS result (status ${p.status}).`);
    const expectedWait = { kind: 'three_ds_result' as const, nodeId };
    if (isThreeDsExpired(p.threeDs, this.deps.clock.now())) {
      // The waits worker has not closed it yet: this request does, as the worker would (payment.canceled).
      await this.resume.execute({ scope, paymentId, input: { kind: 'expired' }, expectedWait }).catch(ignoreInvalidState);
      throw authenticationOver(paymentId);
    }
    const exit = threeDsExitOf({ outcome: command.outcome, eci: command.eci ?? null, brand: p.card?.brand ?? null });
    try {
      await this.resume.execute({
        scope,
        paymentId,
        input: { kind: 'three_ds_result', result: exit },
        expectedWait,
        threeDs: { eci: command.eci ?? null, ...(exit === 'authenticated' ? { authentication: this.authenticationOf(command) } : {}) },
      });
    } catch (error) {
      // Another request or the deadline got there first: answer as the payment now stands.
      if (!(error instanceof DomainError) || error.code !== 'invalid_state') throw error;
      const now = await this.read(scope, paymentId);
      if (now.view().threeDs?.status === 'expired') throw authenticationOver(paymentId);
      throw new DomainError('invalid_state', `Payment ${paymentId} no longer awaits a 3DS result (status ${now.status}).`);
    }
    return (await this.read(scope, paymentId)).toPrimitives();
  }

  /** What the acquirer is sent with the authorization; the 3DS server's reference names it (else a fresh id). */
  private authenticationOf(command: ThreeDsResultCommand): ThreeDsAuthentication {
    return {
      authenticationId: command.referenceId || this.deps.ids.next('3ds_'),
      eci: command.eci ?? '',
      ...(command.cavv ? { cavv: command.cavv } : {}),
      ...(command.xid ? { xid: command.xid } : {}),
      ...(command.version ? { version: command.version } : {}),
    };
  }

  private async read(scope: TenantScope, paymentId: string) {
    const payment = await this.deps.transactor.read((tx) => this.deps.payments.find(tx, scope, paymentId));
    if (!payment) throw new NotFoundError('payment', paymentId);
    return payment;
  }
}

function authenticationOver(paymentId: string): DomainError {
  return new DomainError('payment_expired', `The authentication time of payment ${paymentId} is over; the payment is closed. Create a new payment.`);
}

function ignoreInvalidState(error: unknown): void {
  if (error instanceof DomainError && error.code === 'invalid_state') return;
  throw error;
}
