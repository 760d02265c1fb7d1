/**
 * The walk of a step (flow-step.ts): from one node on through every node decided without the outside world
 * (trigger, condition, switch, set_variable, webhook, split, capture), until one that must call out (acquirer, route,
 * antifraud, zero_auth), wait (three_ds, review, delay, retry) or end (approve, decline). What each node does is
 * decided here or in its own module (routing-step.ts, split-node.ts, flow-node-calls.ts, retry-node.ts).
 */
import type { FlowNode } from '../flow/flow-graph';
import { conditionRules, evaluateRule, type FactValue, type FlowRule } from '../flow/flow-rules';
import { decideRetry, NO_RETRY_LIMITS } from './retry-node';
import { nodeCallOf } from './flow-node-calls';
import { decideSplitNode } from './split-node';
import { enterRouting } from './routing-step';
import type { FlowStepResult } from './flow-step-types';
import type { RunDraft } from './run-draft';

/** Walks from `start` until the run must call out, wait or end. */
export function walkFrom(draft: RunDraft, start: FlowNode): FlowStepResult {
  const { context, at } = draft;
  let node: FlowNode = start;
  // A published graph has no loops; the bound only guards against a stored one that does.
  for (let guard = 0; guard <= draft.index.nodes.size + 1; guard++) {
    draft.cursor = node.id;
    let exit: string;
    switch (node.type) {
      case 'trigger':
        exit = 'next';
        break;
      case 'condition':
        exit = conditionExit(draft, node);
        break;
      case 'switch':
        exit = switchExit(draft, node);
        break;
      case 'set_variable':
        draft.variables[String(node.data.name)] = node.data.value as FactValue;
        exit = 'next';
        break;
      case 'webhook':
        // The payment emits flow.notification for this step (payment.advanceRun), once, when the run is saved.
        draft.record(node, 'next', at, { notification: { ...node.data } });
        exit = 'next';
        break;
      case 'split': {
        // Recorded on the run before any call; the payment takes the shares when the step is saved (advanceRun).
        const split = decideSplitNode(node, { amount: context.payment.amount, hasSplits: draft.hasSplits(), recipientIds: context.recipientIds });
        if (split.kind === 'refused') {
          draft.record(node, null, at, { note: split.message });
          return draft.end({ result: 'failed', reason: split.reason, message: split.message, nodeId: node.id });
        }
        draft.record(node, 'next', at, split.kind === 'applied' ? { split: split.splits } : { note: split.note });
        exit = 'next';
        break;
      }
      case 'acquirer':
      case 'route':
        return enterRouting(draft, node);
      case 'three_ds': {
        // An account that cannot run 3DS (disabled, gone, or without the capability) leaves by unavailable at once.
        const authenticator = context.accounts.find((a) => a.id === node.data.connectorAccountId);
        if (!authenticator || !authenticator.enabled || !authenticator.capabilities.includes('three_ds')) {
          draft.record(node, 'unavailable', at, { note: `connector account ${String(node.data.connectorAccountId)} cannot authenticate (3DS)` });
          const next = draft.index.next.get(node.id)?.get('unavailable');
          if (!next) return draft.end(draft.stopsAt(node, 'unavailable'));
          node = next;
          continue;
        }
        const timeout = context.threeDsTimeoutSeconds ?? null;
        const expiresAt = timeout === null ? null : new Date(context.now.getTime() + timeout * 1000).toISOString();
        return draft.wait({ kind: 'three_ds_result', nodeId: node.id, since: at, expiresAt });
      }
      case 'review':
        return draft.wait({ kind: 'review_decision', nodeId: node.id, since: at });
      case 'antifraud':
      case 'zero_auth': {
        const call = nodeCallOf(node, context.payment, context.accounts);
        if (call.kind === 'call') {
          const waited = draft.wait({ kind: 'node_call', nodeId: node.id, call: call.call, accountId: call.accountId, since: at });
          return { run: waited.run, action: { kind: 'call_node', nodeId: node.id, call: call.call, accountId: call.accountId } };
        }
        // Nothing was asked: the zero_auth node leaves by unavailable, which says nothing about the card (rule 8).
        draft.record(node, 'unavailable', at, { note: call.note, verification: { status: 'unavailable', connectorAccountId: String(node.data.connectorAccountId ?? ''), rawCode: null } });
        const next = draft.index.next.get(node.id)?.get('unavailable');
        if (!next) return draft.end(draft.stopsAt(node, 'unavailable'));
        node = next;
        continue;
      }
      case 'capture':
        // Capture the authorization this run obtained (the recorder captures the full amount once the run is saved);
        // publishing refuses a capture node no authorization can precede, this guards a stored graph that does.
        if (!draft.authorization) return draft.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow reaches capture node ${node.id} without an authorization.`, nodeId: node.id });
        exit = 'next';
        break;
      case 'delay': {
        const minutes = Number(node.data.minutes ?? 0);
        return draft.wait({ kind: 'timer', nodeId: node.id, since: at, dueAt: new Date(context.now.getTime() + Math.max(0, minutes) * 60_000).toISOString() });
      }
      case 'retry':
        return enterRetry(draft, node);
      case 'approve':
        draft.record(node, null, at);
        return draft.authorization
          ? draft.end({ result: 'approved', reason: 'approved', message: `The flow approved the payment at node ${node.id}.`, nodeId: node.id })
          : draft.end({ result: 'failed', reason: 'flow_incomplete', message: `The flow reaches approve node ${node.id} without an authorization.`, nodeId: node.id });
      case 'decline':
        draft.record(node, null, at);
        return draft.end(draft.declineAt(node));
      default:
        return draft.end({ result: 'failed', reason: 'node_not_supported', message: `Node ${node.id} (${node.type}) cannot run in this version.`, nodeId: node.id });
    }
    // Webhook and split nodes recorded their step above, with what they did.
    if (node.type !== 'webhook' && node.type !== 'split') draft.record(node, exit, at);
    const next = draft.index.next.get(node.id)?.get(exit);
    if (!next) return draft.end(draft.stopsAt(node, exit));
    node = next;
  }
  return draft.end({ result: 'failed', reason: 'flow_incomplete', message: 'The flow loops without reaching an end.', nodeId: draft.cursor });
}

/** A condition node leaves by true when its rules hold (all of them, or any with match `any`). */
function conditionExit(draft: RunDraft, node: FlowNode): string {
  const { rules, match } = conditionRules(node.data);
  const results = (rules as FlowRule[]).map((rule) => evaluateRule(rule, draft.facts(), draft.variableMap()));
  return (match === 'any' ? results.some(Boolean) : results.every(Boolean)) ? 'true' : 'false';
}

/** A switch node leaves by the first case its field equals (case_1, case_2 ...), else by default. */
function switchExit(draft: RunDraft, node: FlowNode): string {
  const cases = (node.data.cases ?? []) as Array<{ value: unknown }>;
  const hit = cases.findIndex((c) => evaluateRule({ field: String(node.data.field), operator: 'eq', value: c.value }, draft.facts(), draft.variableMap()));
  return hit >= 0 ? `case_${hit + 1}` : 'default';
}

/** A retry node: wait its interval on a durable timer, or leave by exhausted (attempts spent, irreversible, brand budget). */
function enterRetry(draft: RunDraft, node: FlowNode): FlowStepResult {
  const decision = decideRetry(node, draft.steps, draft.context.retryGate ?? NO_RETRY_LIMITS, draft.context.now);
  if (decision.kind === 'wait') return draft.wait({ kind: 'timer', nodeId: node.id, since: draft.at, dueAt: decision.dueAt });
  draft.retryStop = decision.stop;
  return draft.leave(node, 'exhausted', draft.at, { note: decision.stop.message });
}
