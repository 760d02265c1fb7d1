/**
 * The executor of a payment's flow run: it carries out the step function's actions until the run ends or waits for
 * something other than an acquirer's answer. Each call to an account goes out with the attempt id the run chose
 * (the acquirer's idempotency key), saved before the call (`AttemptIntents`), outside any database transaction and
 * under the gateway's deadline; its answer is fed back to the run as its next input. Creation and crash recovery
 * drive runs through this one loop, so a run resumed in another process takes the very same steps.
 */
import { classifyDecline, type CardIdentity } from '../../domain/payment/decline/classify-decline';
import type { PaymentAttempt } from '../../domain/payment/payment';
import { stepFlowRun, type AcquirerCallOutcome, type FlowStepContext, type FlowStepResult } from '../../domain/flow-run/flow-step';
import { flowFactsOf, routingProjectionOf } from '../../domain/flow-run/payment-facts';
import { indexGraph, type FlowGraph } from '../../domain/flow/flow-graph';
import type { RoutableAccount } from '../../domain/payment/routing/direct-routing';
import type { Payment } from '../../domain/payment/payment';
import type { AcquirerFraudAnalysis, AuthorizeOutput, ThreeDsAuthentication } from '../../domain/ports/acquirer-gateway';
import { THREE_DS_TIMEOUT_SECONDS } from '../../domain/payment/payment-three-ds';
import type { PaymentConnectorAccount } from '../../domain/ports/payment-connectors';
import type { AuthorizeRequest } from '../../domain/ports/payment-recovery';
import type { TenantScope } from '../../domain/shared/environment';
import type { BankCharge } from '../../domain/payment/bank-charge';
import { requestForAccount } from './authorize-request';
import type { CardRetryBudget } from './card-retry-budget';
import { issueBankCharge, type IssuedCharge } from './bank-charge-call';
import { FlowNodeCalls } from './flow-node-call';
import { NOT_SENT, callFailureOf, technicalAttempt } from './payment-attempts';
import type { PaymentDeps } from './payment-deps';

/** The acquirer's business answer that decided the run: approved, declined, or the demand for 3DS that ended it. */
export type AcquirerDecision =
  | { readonly kind: 'approved'; readonly account: PaymentConnectorAccount; readonly output: Extract<AuthorizeOutput, { status: 'approved' }> }
  | { readonly kind: 'declined'; readonly account: PaymentConnectorAccount; readonly rawCode: string; readonly fraudAnalysis?: AcquirerFraudAnalysis }
  | { readonly kind: 'authentication_required'; readonly account: PaymentConnectorAccount }
  /** Pix or boleto: the charge was issued; the run waits for the bank. */
  | { readonly kind: 'charge_issued'; readonly account: PaymentConnectorAccount; readonly acquirerPaymentId: string; readonly charge: BankCharge };

export interface CallFailureNote {
  readonly account: { readonly id: string; readonly name: string };
  readonly message: string;
}

interface CallResult {
  readonly attempt: PaymentAttempt;
  readonly outcome: AcquirerCallOutcome;
  readonly decision?: AcquirerDecision;
  readonly failure?: CallFailureNote;
  /** pending_payment: when the issued charge lapses. */
  readonly expiresAt?: string;
}

/** Where a run's attempt ids come from, and how each is made durable before its call. */
export interface AttemptIntents {
  /** The attempt id for a call to this account (the step context's newAttemptId). */
  idFor(accountId: string): string;
  /** Saves the intent before the call, or extends the lease of one saved earlier; false: the lease was lost, stop. */
  beforeCall(accountId: string, attemptId: string): Promise<boolean>;
}

export interface DrivenRun {
  /** The last step: its action is `end` or a `wait` that is not an acquirer's answer. */
  readonly step: FlowStepResult;
  readonly attempts: PaymentAttempt[];
  readonly decision: AcquirerDecision | null;
  readonly lastFailure: CallFailureNote | null;
  /** Another holder took the payment over while this one drove it: record nothing, it finishes the run. */
  readonly handedOver: boolean;
}

export interface DriveInput {
  readonly scope: TenantScope;
  readonly request: AuthorizeRequest;
  /** The card as decline classification reads it (brand, BIN). */
  readonly card: CardIdentity | null;
  /** The step context but for time and ids, which the executor supplies at each step. */
  readonly context: Omit<FlowStepContext, 'now' | 'newAttemptId'>;
  /** The step whose action to carry out first. */
  readonly from: FlowStepResult;
  readonly intents: AttemptIntents;
  /** The card's brand retry budget, the context's retryGate: each attempt sent is counted in it. */
  readonly budget?: CardRetryBudget;
  /**
   * The cardholder's 3DS authentication for the acquirer (CAVV, XID, ECI), when the run goes on from an authenticated
   * three_ds node. Held in memory for these calls only: it is not part of the request saved for recovery or waits.
   */
  readonly threeDs?: ThreeDsAuthentication;
}

/** What a payment's run steps over: its graph, what it knows of the payment, the environment's accounts. */
export function runContext(payment: Payment, graph: FlowGraph, accounts: readonly RoutableAccount[], random: () => number): DriveInput['context'] {
  const p = payment.view();
  return { graph: indexGraph(graph), payment: routingProjectionOf(p), facts: flowFactsOf(p), accounts, random, threeDsTimeoutSeconds: THREE_DS_TIMEOUT_SECONDS };
}

export class AuthorizationRun {
  private readonly nodeCalls: FlowNodeCalls;

  constructor(private readonly deps: PaymentDeps) {
    this.nodeCalls = new FlowNodeCalls(deps);
  }

  /**
   * The antifraud and zero_auth calls a run makes before its first acquirer call, made before the payment is saved
   * (creation): an interrupted request saved nothing and its repetition asks again (same key, same answer), while
   * the acquirer call that follows is saved with the payment in tx1 as always. Returns the first other action.
   */
  async callNodesAhead(input: Pick<DriveInput, 'scope' | 'request' | 'context' | 'from'>): Promise<FlowStepResult> {
    let step = input.from;
    while (step.action.kind === 'call_node') step = await this.nodeCall(input, step, step.action, () => this.deps.ids.next('att_'));
    return step;
  }

  /** One antifraud or zero_auth call at a node, its answer fed back to the run. */
  private async nodeCall(input: Pick<DriveInput, 'scope' | 'request' | 'context'>, step: FlowStepResult, action: Extract<FlowStepResult['action'], { kind: 'call_node' }>, newAttemptId: (accountId: string) => string): Promise<FlowStepResult> {
    const result = await this.nodeCalls.call(input.scope, input.request, input.context.payment.methodType, action);
    return stepFlowRun({ ...input.context, now: this.deps.clock.now(), newAttemptId }, step.run, { kind: 'node_call_outcome', result });
  }

  async drive(input: DriveInput): Promise<DrivenRun> {
    const attempts: PaymentAttempt[] = [];
    let decision: AcquirerDecision | null = null;
    let lastFailure: CallFailureNote | null = null;
    let step = input.from;
    while (step.action.kind === 'call_acquirer' || step.action.kind === 'call_node') {
      if (step.action.kind === 'call_node') {
        // An antifraud or zero_auth node met after an acquirer's answer (or on resuming): no attempt id, no money.
        step = await this.nodeCall(input, step, step.action, (account) => input.intents.idFor(account));
        continue;
      }
      const { accountId, attemptId } = step.action;
      if (!(await input.intents.beforeCall(accountId, attemptId))) return { step, attempts, decision, lastFailure, handedOver: true };
      const result = await this.call(input.scope, input.request, input.card, attemptId, accountId, input.threeDs);
      attempts.push(result.attempt);
      await input.budget?.record(result.attempt);
      if (result.decision) decision = result.decision;
      if (result.failure) lastFailure = result.failure;
      step = stepFlowRun(
        { ...input.context, now: this.deps.clock.now(), newAttemptId: (account) => input.intents.idFor(account) },
        step.run,
        {
          kind: 'acquirer_outcome',
          attemptId,
          outcome: result.outcome,
          ...(result.failure ? { message: result.failure.message } : {}),
          ...(result.expiresAt ? { expiresAt: result.expiresAt } : {}),
        },
      );
    }
    return { step, attempts, decision, lastFailure, handedOver: false };
  }

  /** One Authorize to one account with one attempt id; every way it can end, as the run's input. */
  private async call(scope: TenantScope, request: AuthorizeRequest, card: CardIdentity | null, attemptId: string, accountId: string, threeDs?: ThreeDsAuthentication): Promise<CallResult> {
    let opened: Awaited<ReturnType<PaymentDeps['connectors']['open']>>;
    let openFailure: string | null = null;
    try {
      opened = await this.deps.connectors.open(scope, accountId);
      if (!opened) openFailure = `connector account ${accountId} is not available in this installation (no adapter for it, or it was removed)`;
    } catch (error) {
      // credentials that cannot be read (key rotated, row gone) are this account's problem: the run moves on
      opened = null;
      openFailure = `the account could not be opened: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (!opened) {
      const message = `Not sent: ${openFailure}`;
      return {
        attempt: technicalAttempt(attemptId, accountId, '', this.deps.clock.now(), 0, message, NOT_SENT),
        outcome: 'technical_failure',
        failure: { account: { id: accountId, name: accountId }, message: openFailure! },
      };
    }
    const { account, gateway, credentials } = opened;
    const started = this.deps.clock.now();
    let output: AuthorizeOutput;
    try {
      // The method's acquirer call (domain/payment/methods): a Pix or boleto request carries its charge's options.
      if (request.bankCharge) return this.chargeResult(attemptId, account, started, await issueBankCharge(gateway, credentials, attemptId, request, request.bankCharge, this.deps.qrCodes, started));
      if (!request.source) throw new Error(`payment ${request.paymentId} has neither a card nor a bank charge to send`);
      output = await gateway.authorize({ credentials, idempotencyKey: attemptId, ...requestForAccount(request, account), source: request.source, ...(threeDs ? { threeDs } : {}) });
    } catch (error) {
      const latencyMs = this.deps.clock.now().getTime() - started.getTime();
      const message = error instanceof Error ? error.message : String(error);
      return {
        attempt: technicalAttempt(attemptId, account.id, account.connectorSlug, started, latencyMs, message, callFailureOf(error)),
        outcome: 'technical_failure',
        failure: { account: { id: account.id, name: account.name }, message },
      };
    }
    const latencyMs = this.deps.clock.now().getTime() - started.getTime();
    const base = { id: attemptId, connectorAccountId: account.id, connectorSlug: account.connectorSlug, latencyMs, startedAt: started.toISOString() };
    if (output.status === 'approved') {
      const held = output.fraudReviewPending;
      return {
        attempt: { ...base, rawCode: output.rawCode, classification: held ? 'FRAUD_REVIEW' : 'APPROVED', outcome: held ? 'fraud_review' : 'approved', message: output.message || null },
        outcome: 'approved',
        decision: { kind: 'approved', account, output },
      };
    }
    if (output.status === 'declined') {
      return {
        attempt: { ...base, rawCode: output.rawCode, classification: classifyDecline(output.rawCode, card).reason, outcome: 'declined', message: output.message || null },
        outcome: 'declined',
        decision: { kind: 'declined', account, rawCode: output.rawCode, ...(output.fraudAnalysis ? { fraudAnalysis: output.fraudAnalysis } : {}) },
      };
    }
    return {
      attempt: { ...base, rawCode: output.rawCode || null, classification: 'AUTHENTICATION_REQUIRED', outcome: 'declined', message: output.message || null },
      outcome: 'authentication_required',
      decision: { kind: 'authentication_required', account },
    };
  }

  /** A Pix or boleto issue as the run's input: pending_payment until its expiry, or a refusal the next account may not repeat. */
  private chargeResult(attemptId: string, account: PaymentConnectorAccount, started: Date, issued: IssuedCharge): CallResult {
    const latencyMs = this.deps.clock.now().getTime() - started.getTime();
    const base = { id: attemptId, connectorAccountId: account.id, connectorSlug: account.connectorSlug, latencyMs, startedAt: started.toISOString() };
    if (issued.kind === 'refused') {
      return {
        attempt: { ...base, rawCode: issued.rawCode, classification: 'PROCESSING_ERROR', outcome: 'technical_failure', message: issued.message },
        outcome: 'technical_failure',
        failure: { account: { id: account.id, name: account.name }, message: issued.message },
      };
    }
    return {
      attempt: { ...base, rawCode: null, classification: 'CHARGE_ISSUED', outcome: 'approved', message: null },
      outcome: 'pending_payment',
      decision: { kind: 'charge_issued', account, acquirerPaymentId: issued.acquirerPaymentId, charge: issued.charge },
      expiresAt: issued.charge.expiresAt,
    };
  }
}
