/**
 * The step function of a flow run: given the graph, the run and one input, it walks the graph as far as it can
 * without the outside world and returns the run as it now stands with the one action the executor must take:
 * call an acquirer account (with a fresh attempt id, saved before the call), wait for an input, or end.
 * Conditions, switches and variables are decided here; every other input (an acquirer's answer, a 3DS result, a
 * review decision, a bank notice, a timer) re-enters through the same function, so a run can pause at any
 * node and resume later, in another process, from what was saved. Pure: the caller passes time and ids.
 */
import { DomainError } from '../shared/domain-error';
import { indexGraph, type FlowNode, type IndexedGraph } from '../flow/flow-graph';
import { conditionRules, evaluateRule, type FactValue, type FlowPaymentFacts, type FlowRule } from '../flow/flow-rules';
import type { RoutableAccount } from '../payment/routing/direct-routing';
import { orderRouteAccounts } from './route-order';
import { decideRetry, NO_RETRY_LIMITS, type RetryStop } from './retry-node';
import { exitOfNodeCall, nodeCallOf, stepDetailOf } from './flow-node-calls';
import type { FlowAction, FlowRunInput, FlowStepContext, FlowStepResult } from './flow-step-types';
import { decideSplitNode } from './split-node';
import { nextRunStatus, type FlowRunCall, type FlowRunOutcome, type FlowRunState, type FlowRunStep, type FlowWait } from './flow-run';

export type { FlowStepContext, AcquirerCallOutcome, FlowRunInput, FlowAction, FlowStepResult } from './flow-step-types';

/** Which input each wait takes besides `expired`. */
const INPUT_OF_WAIT: Record<FlowWait['kind'], FlowRunInput['kind']> = {
  acquirer_outcome: 'acquirer_outcome',
  three_ds_result: 'three_ds_result',
  review_decision: 'review_decision',
  bank_notice: 'bank_notice',
  timer: 'timer_fired',
  node_call: 'node_call_outcome',
};

/**
 * Node types the step function runs. Publishing (domain/flow/publish-check.ts, RUNNABLE_NODE_TYPES) admits those of
 * them whose capability is complete; a unit test keeps the publishable ones a subset of these.
 */
export const EXECUTABLE_NODE_TYPES = ['trigger', 'condition', 'switch', 'set_variable', 'acquirer', 'route', 'three_ds', 'review', 'delay', 'retry', 'webhook', 'antifraud', 'zero_auth', 'capture', 'split', 'approve', 'decline'] as const;

export function stepFlowRun(context: FlowStepContext, run: FlowRunState, input: FlowRunInput): FlowStepResult {
  const walker = new RunWalker(context, run);
  return walker.apply(input);
}

/** A mutable copy of the run for one step; the result is a new frozen-by-convention state. */
class RunWalker {
  private readonly index: IndexedGraph;
  private status: FlowRunState['status'];
  private cursor: string | null;
  private route: FlowRunState['route'];
  private readonly tried: string[];
  private readonly variables: Record<string, FactValue>;
  private readonly steps: FlowRunStep[];
  private waitingFor: FlowWait | null;
  private authorization: FlowRunState['authorization'];
  private outcome: FlowRunOutcome | null;
  private unroutable: FlowRunState['unroutable'];
  /** Why a retry node of this step left by exhausted, for the decline it leads to. */
  private retryStop: RetryStop | null = null;
  private readonly at: string;

  constructor(private readonly context: FlowStepContext, private readonly run: FlowRunState) {
    this.index = 'next' in context.graph ? context.graph : indexGraph(context.graph);
    this.status = run.status;
    this.cursor = run.cursor;
    this.route = run.route;
    this.tried = [...run.tried];
    this.variables = { ...run.variables };
    this.steps = [...run.steps];
    this.waitingFor = run.waitingFor;
    this.authorization = run.authorization;
    this.outcome = run.outcome;
    this.unroutable = run.unroutable;
    this.at = context.now.toISOString();
  }

  apply(input: FlowRunInput): FlowStepResult {
    if (this.status === 'ended') throw new DomainError('invalid_state', 'The flow run has ended; it takes no more input.');
    if (input.kind === 'start') {
      if (this.status !== 'running' || this.cursor !== null || this.steps.length > 0) {
        throw new DomainError('invalid_state', 'The flow run has already started.');
      }
      const trigger = [...this.index.nodes.values()].find((node) => node.type === 'trigger');
      if (!trigger) return this.end({ result: 'failed', reason: 'flow_incomplete', message: 'The flow has no trigger node.', nodeId: null });
      return this.walk(trigger);
    }
    const wait = this.waitingFor;
    if (this.status !== 'waiting' || !wait) throw new DomainError('invalid_state', `The flow run is not waiting for anything; ${input.kind} cannot resume it.`);
    if (input.kind !== 'expired' && INPUT_OF_WAIT[wait.kind] !== input.kind) {
      throw new DomainError('invalid_state', `The flow run waits for ${wait.kind} at node ${wait.nodeId}, not for ${input.kind}.`);
    }
    const node = this.node(wait.nodeId);
    if (input.kind === 'expired') return this.expire(wait, node);
    this.status = nextRunStatus({ status: this.status }, 'resume');
    this.waitingFor = null;
    switch (input.kind) {
      case 'acquirer_outcome':
        return this.acquirerAnswered(wait, node, input);
      case 'three_ds_result':
        return this.leave(node, input.result, wait.since);
      case 'review_decision':
        return this.leave(node, input.decision, wait.since, input.note ? { note: input.note } : {});
      case 'timer_fired':
        if (node.type === 'retry') return this.retryFired(node, wait.since);
        return this.leave(node, 'next', wait.since);
      case 'node_call_outcome':
        if (wait.kind !== 'node_call' || wait.call !== input.result.call) throw new DomainError('invalid_state', `The flow run waits for ${wait.kind} at node ${wait.nodeId}, not for a ${input.result.call} answer.`);
        return this.leave(node, exitOfNodeCall(input.result), wait.since, stepDetailOf(input.result));
      case 'bank_notice':
        if (wait.kind !== 'bank_notice') throw new Error('unreachable: bank notice without its wait');
        if (input.status === 'expired') return this.expire(wait, node);
        this.authorization = { accountId: wait.accountId, attemptId: wait.attemptId };
        return this.leaveRouting(node, 'approved');
    }
  }

  /** Walks from `start` through every node decided without the outside world. */
  private walk(start: FlowNode): FlowStepResult {
    let node: FlowNode = start;
    // A published graph has no loops; the bound only guards against a stored one that does.
    for (let guard = 0; guard <= this.index.nodes.size + 1; guard++) {
      this.cursor = node.id;
      let exit: string;
      switch (node.type) {
        case 'trigger':
          exit = 'next';
          break;
        case 'condition': {
          const { rules, match } = conditionRules(node.data);
          const results = (rules as FlowRule[]).map((rule) => evaluateRule(rule, this.facts(), this.variableMap()));
          exit = (match === 'any' ? results.some(Boolean) : results.every(Boolean)) ? 'true' : 'false';
          break;
        }
        case 'switch': {
          const cases = (node.data.cases ?? []) as Array<{ value: unknown }>;
          const hit = cases.findIndex((c) => evaluateRule({ field: String(node.data.field), operator: 'eq', value: c.value }, this.facts(), this.variableMap()));
          exit = hit >= 0 ? `case_${hit + 1}` : 'default';
          break;
        }
        case 'set_variable':
          this.variables[String(node.data.name)] = node.data.value as FactValue;
          exit = 'next';
          break;
        case 'webhook':
          // The payment emits flow.notification for this step (payment.advanceRun), once, when the run is saved.
          this.record(node, 'next', this.at, { notification: { ...node.data } });
          exit = 'next';
          break;
        case 'split': {
          // Recorded on the run before any call; the payment takes the shares when the step is saved (advanceRun).
          const split = decideSplitNode(node, { amount: this.context.payment.amount, hasSplits: this.hasSplits(), recipientIds: this.context.recipientIds });
          if (split.kind === 'refused') {
            this.record(node, null, this.at, { note: split.message });
            return this.end({ result: 'failed', reason: split.reason, message: split.message, nodeId: node.id });
          }
          this.record(node, 'next', this.at, split.kind === 'applied' ? { split: split.splits } : { note: split.note });
          exit = 'next';
          break;
        }
        case 'acquirer':
        case 'route':
          return this.enterRouting(node);
        case 'three_ds': {
          // An account that cannot run 3DS (disabled, gone, or without the capability) leaves by unavailable at once.
          const authenticator = this.context.accounts.find((a) => a.id === node.data.connectorAccountId);
          if (!authenticator || !authenticator.enabled || !authenticator.capabilities.includes('three_ds')) {
            this.record(node, 'unavailable', this.at, { note: `connector account ${String(node.data.connectorAccountId)} cannot authenticate (3DS)` });
            const next = this.index.next.get(node.id)?.get('unavailable');
            if (!next) return this.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow stops at ${node.id} (port unavailable leads nowhere).`, nodeId: node.id });
            node = next;
            continue;
          }
          const timeout = this.context.threeDsTimeoutSeconds ?? null;
          const expiresAt = timeout === null ? null : new Date(this.context.now.getTime() + timeout * 1000).toISOString();
          return this.wait({ kind: 'three_ds_result', nodeId: node.id, since: this.at, expiresAt });
        }
        case 'review':
          return this.wait({ kind: 'review_decision', nodeId: node.id, since: this.at });
        case 'antifraud':
        case 'zero_auth': {
          const call = nodeCallOf(node, this.context.payment, this.context.accounts);
          if (call.kind === 'call') {
            const waited = this.wait({ kind: 'node_call', nodeId: node.id, call: call.call, accountId: call.accountId, since: this.at });
            return { run: waited.run, action: { kind: 'call_node', nodeId: node.id, call: call.call, accountId: call.accountId } };
          }
          // Nothing was asked: the zero_auth node leaves by unavailable, which says nothing about the card (rule 8).
          this.record(node, 'unavailable', this.at, { note: call.note, verification: { status: 'unavailable', connectorAccountId: String(node.data.connectorAccountId ?? ''), rawCode: null } });
          const next = this.index.next.get(node.id)?.get('unavailable');
          if (!next) return this.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow stops at ${node.id} (port unavailable leads nowhere).`, nodeId: node.id });
          node = next;
          continue;
        }
        case 'capture':
          // Capture the authorization this run obtained (the recorder captures the full amount once the run is saved);
          // publishing refuses a capture node no authorization can precede, this guards a stored graph that does.
          if (!this.authorization) return this.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow reaches capture node ${node.id} without an authorization.`, nodeId: node.id });
          exit = 'next';
          break;
        case 'delay': {
          const minutes = Number(node.data.minutes ?? 0);
          return this.wait({ kind: 'timer', nodeId: node.id, since: this.at, dueAt: new Date(this.context.now.getTime() + Math.max(0, minutes) * 60_000).toISOString() });
        }
        case 'retry':
          return this.retryNode(node);
        case 'approve':
          this.record(node, null, this.at);
          return this.authorization
            ? this.end({ result: 'approved', reason: 'approved', message: `The flow approved the payment at node ${node.id}.`, nodeId: node.id })
            : this.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow reaches approve node ${node.id} without an authorization.`, nodeId: node.id });
        case 'decline':
          this.record(node, null, this.at);
          return this.end(this.declineOutcome(node));
        default:
          return this.end({ result: 'failed', reason: 'node_not_supported', message: `Node ${node.id} (${node.type}) cannot run in this version.`, nodeId: node.id });
      }
      if (node.type !== 'webhook' && node.type !== 'split') this.record(node, exit, this.at);
      const next = this.index.next.get(node.id)?.get(exit);
      if (!next) return this.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow stops at ${node.id} (port ${exit} leads nowhere).`, nodeId: node.id });
      node = next;
    }
    return this.end({ result: 'failed', reason: 'flow_incomplete', message: 'The flow loops without reaching an end.', nodeId: this.cursor });
  }

  /** An acquirer or route node: its usable accounts, in its order, without those called already. */
  private enterRouting(node: FlowNode): FlowStepResult {
    // Spec, creation rule 5: debit is charged only after the cardholder authenticated at a three_ds node.
    if (this.context.payment.methodType === 'debit_card' && !this.steps.some((s) => s.type === 'three_ds' && s.exit === 'authenticated')) {
      return this.unroutableAt(node, 'authentication_required', 'A debit card is charged only after the cardholder authenticates (3DS); this run reaches the acquirer without it.');
    }
    const ids = node.type === 'acquirer' ? [String(node.data.connectorAccountId)] : ((node.data.connectorAccountIds as string[] | undefined) ?? []);
    const byId = new Map(this.context.accounts.map((a) => [a.id, a]));
    const { payment } = this.context;
    let usable = ids
      .map((id) => byId.get(id))
      .filter((a): a is RoutableAccount => !!a && a.enabled && a.capabilities.includes(payment.methodType) && !this.tried.includes(a.id));
    usable = orderRouteAccounts(node, usable, this.context.random);
    if (payment.pinnedConnectorAccountId) {
      usable = usable.filter((a) => a.id === payment.pinnedConnectorAccountId);
      if (!usable.length) return this.unroutableAt(node, 'pinned_account_unavailable', `The flow does not route to connector account ${payment.pinnedConnectorAccountId}, which the card names.`);
    }
    if (!usable.length) return this.unroutableAt(node, 'no_account_available', `No connector account of the flow is enabled for ${payment.methodType} (node ${node.id}).`);
    if (this.hasSplits()) {
      usable = usable.filter((a) => a.capabilities.includes('split'));
      if (!usable.length) return this.unroutableAt(node, 'split_not_supported', 'No connector account of the flow can execute a split payment.');
    }
    this.route = { nodeId: node.id, candidates: usable.map((a) => a.id), next: 0, since: this.at, calls: [] };
    return this.callNext(node);
  }

  private unroutableAt(node: FlowNode, reason: string, message: string): FlowStepResult {
    this.unroutable = { reason, message };
    this.route = { nodeId: node.id, candidates: [], next: 0, since: this.at, calls: [] };
    return this.leaveRouting(node, 'error', message);
  }

  private callNext(node: FlowNode): FlowStepResult {
    // The card's brand budget is asked before every call, a fallback's included: routing stops before it is exceeded.
    const verdict = (this.context.retryGate ?? NO_RETRY_LIMITS).verdict('call');
    if (!verdict.allowed) {
      this.unroutable = { reason: verdict.reason, message: verdict.message };
      return this.leaveRouting(node, 'error', verdict.message);
    }
    const route = this.route!;
    const accountId = route.candidates[route.next]!;
    this.route = { ...route, next: route.next + 1 };
    this.tried.push(accountId);
    const attemptId = this.context.newAttemptId(accountId);
    const call: FlowRunCall = { accountId, attemptId, result: null, startedAt: this.at, endedAt: null };
    this.route = { ...this.route!, calls: [...route.calls, call] };
    const result = this.wait({ kind: 'acquirer_outcome', nodeId: node.id, accountId, attemptId, since: this.at });
    return { run: result.run, action: { kind: 'call_acquirer', nodeId: node.id, accountId, attemptId } };
  }

  private acquirerAnswered(wait: FlowWait, node: FlowNode, input: Extract<FlowRunInput, { kind: 'acquirer_outcome' }>): FlowStepResult {
    if (wait.kind !== 'acquirer_outcome') throw new Error('unreachable: acquirer outcome without its wait');
    if (input.attemptId !== wait.attemptId) {
      throw new DomainError('invalid_state', `The flow run waits for attempt ${wait.attemptId}, not ${input.attemptId}.`);
    }
    this.answerCall(input.outcome, input.message);
    switch (input.outcome) {
      case 'approved':
        this.authorization = { accountId: wait.accountId, attemptId: wait.attemptId };
        return this.leaveRouting(node, 'approved');
      case 'declined':
        return this.leaveRouting(node, 'declined');
      case 'pending_payment':
        // Pix and boleto: the charge is issued; the bank's confirmation is the answer the node waits for.
        return this.wait({ kind: 'bank_notice', nodeId: node.id, accountId: wait.accountId, attemptId: wait.attemptId, since: this.at, expiresAt: input.expiresAt ?? null });
      case 'authentication_required':
        this.record(node, 'declined', this.route?.since ?? wait.since, { calls: this.route?.calls ?? [], note: 'the issuer requires 3DS authentication' });
        return this.end({
          result: 'failed',
          reason: 'authentication_required',
          message: 'The issuer requires 3DS authentication; publish a flow with a three_ds node to charge this card.',
          nodeId: node.id,
        });
      case 'technical_failure': {
        const route = this.route;
        if (route && route.nodeId === node.id && route.next < route.candidates.length) return this.callNext(node);
        return this.leaveRouting(node, 'error', input.message ?? 'technical failure');
      }
    }
  }

  /** Writes the acquirer's answer on the node's pending call. */
  private answerCall(result: NonNullable<FlowRunCall['result']>, message: string | undefined): void {
    const route = this.route;
    if (!route || route.calls.length === 0) return;
    const calls = [...route.calls];
    const last = calls[calls.length - 1]!;
    calls[calls.length - 1] = { ...last, result, endedAt: this.at, ...(message ? { note: message } : {}) };
    this.route = { ...route, calls };
  }

  /**
   * Leaves an acquirer or route node, as one step holding its calls. An unwired exit ends the run as the exit implies
   * (approved: approved, declined: declined, error: the end of the fallback list), as a flow wiring it to a terminal would.
   */
  private leaveRouting(node: FlowNode, exit: 'approved' | 'declined' | 'error', note?: string): FlowStepResult {
    const route = this.route;
    this.route = null;
    this.record(node, exit, route?.since ?? this.at, { calls: route?.calls ?? [], ...(note ? { note } : {}) });
    const next = this.index.next.get(node.id)?.get(exit);
    if (next) return this.walk(next);
    if (exit === 'approved') return this.end({ result: 'approved', reason: 'approved', message: `Node ${node.id} approved the payment.`, nodeId: node.id });
    return this.end(this.declineOutcome(node));
  }

  /** Leaves a node that waited (3DS, review, timer) by `exit`. */
  private leave(node: FlowNode, exit: string, since: string, detail: Pick<FlowRunStep, 'note' | 'antifraud' | 'verification'> = {}): FlowStepResult {
    this.record(node, exit, since, detail);
    const next = this.index.next.get(node.id)?.get(exit);
    if (!next) return this.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow stops at ${node.id} (port ${exit} leads nowhere).`, nodeId: node.id });
    return this.walk(next);
  }

  private expire(wait: FlowWait, node: FlowNode): FlowStepResult {
    this.waitingFor = null;
    const route = this.route;
    this.record(node, null, route?.since ?? wait.since, { ...(route ? { calls: route.calls } : {}), note: `${wait.kind} expired` });
    if (wait.kind === 'bank_notice') return this.end({ result: 'canceled', reason: 'expired', message: 'The charge expired without payment.', nodeId: node.id });
    if (wait.kind === 'three_ds_result') return this.end({ result: 'failed', reason: 'authentication_expired', message: 'The buyer did not authenticate in time.', nodeId: node.id });
    throw new DomainError('invalid_state', `A ${wait.kind} wait has no deadline to pass.`);
  }

  /**
   * How a run that reaches a decline (or runs out of accounts) ends: an issuer's decline is declined; running out
   * of accounts after calling some is all_accounts_failed; without calling any, why none could be called; a
   * decline reached by the flow's own rules is declined_by_flow.
   */
  private declineOutcome(node: FlowNode): FlowRunOutcome {
    if (this.retryStop) return { result: 'declined', reason: this.retryStop.reason, message: this.retryStop.message, nodeId: node.id };
    const last = [...this.steps].reverse().find((s) => s.type === 'acquirer' || s.type === 'route');
    if (last?.exit === 'error' && this.unroutable?.reason === 'brand_retry_limit' && last.note === this.unroutable.message) {
      return { result: 'failed', reason: this.unroutable.reason, message: this.unroutable.message, nodeId: node.id };
    }
    if (last?.exit === 'declined') return { result: 'declined', reason: 'issuer_declined', message: 'The issuer declined the payment.', nodeId: node.id };
    const calledAny = this.steps.some((s) => (s.calls?.length ?? 0) > 0);
    if (last?.exit === 'error' && calledAny) return { result: 'failed', reason: 'all_accounts_failed', message: last.note ?? 'No connector account could process the payment.', nodeId: node.id };
    if (last?.exit === 'error' && this.unroutable) return { result: 'failed', reason: this.unroutable.reason, message: this.unroutable.message, nodeId: node.id };
    return { result: 'failed', reason: 'declined_by_flow', message: `The flow declined the payment at node ${node.id}.`, nodeId: node.id };
  }

  /** A retry node: wait its interval on a durable timer, or leave by exhausted (attempts spent, irreversible, brand budget). */
  private retryNode(node: FlowNode): FlowStepResult {
    const decision = decideRetry(node, this.steps, this.context.retryGate ?? NO_RETRY_LIMITS, this.context.now);
    if (decision.kind === 'wait') return this.wait({ kind: 'timer', nodeId: node.id, since: this.at, dueAt: decision.dueAt });
    this.retryStop = decision.stop;
    return this.leave(node, 'exhausted', this.at, { note: decision.stop.message });
  }

  /** The retry's delay is over: routing starts afresh, so the accounts called before may be called again. */
  private retryFired(node: FlowNode, since: string): FlowStepResult {
    this.tried.length = 0;
    this.unroutable = null;
    return this.leave(node, 'retry', since);
  }

  private wait(wait: FlowWait): FlowStepResult {
    this.status = nextRunStatus({ status: this.status }, 'wait');
    this.waitingFor = wait;
    this.cursor = wait.nodeId;
    return { run: this.snapshot(), action: { kind: 'wait', wait } };
  }

  private end(outcome: FlowRunOutcome): FlowStepResult {
    this.status = nextRunStatus({ status: this.status }, 'end');
    this.waitingFor = null;
    this.route = null;
    this.cursor = null;
    this.outcome = outcome;
    return { run: this.snapshot(), action: { kind: 'end', outcome } };
  }

  private record(node: FlowNode, exit: string | null, since: string, detail: Pick<FlowRunStep, 'calls' | 'note' | 'notification' | 'antifraud' | 'verification' | 'split'> = {}): void {
    this.steps.push({ nodeId: node.id, type: node.type, exit, startedAt: since, endedAt: this.at, ...detail });
  }

  private node(id: string): FlowNode {
    const node = this.index.nodes.get(id);
    if (!node) throw new DomainError('invalid_state', `The flow run stands at node ${id}, which its graph does not have.`);
    return node;
  }

  /** The payment's own splits, or those a split node of this run gave it: only split-capable accounts route it. */
  private hasSplits(): boolean {
    return this.context.payment.hasSplits || this.steps.some((s) => s.split !== undefined);
  }

  /** What conditions test: after a split node, hasSplits is true as it will be on the saved payment. */
  private facts(): FlowPaymentFacts {
    return this.hasSplits() && !this.context.facts.hasSplits ? { ...this.context.facts, hasSplits: true } : this.context.facts;
  }

  private variableMap(): Map<string, FactValue> {
    return new Map(Object.entries(this.variables));
  }

  private snapshot(): FlowRunState {
    return {
      flow: this.run.flow,
      status: this.status,
      cursor: this.cursor,
      route: this.route,
      tried: this.tried,
      variables: this.variables,
      steps: this.steps,
      waitingFor: this.waitingFor,
      authorization: this.authorization,
      outcome: this.outcome,
      unroutable: this.unroutable,
    };
  }
}
