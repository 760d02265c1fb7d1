import { walkManualRun } from '../../domain/flow-run/manual-run';
import type { FactValue, FlowPaymentFacts } from '../../domain/flow/flow-rules';
import type { EventOutbox } from '../../domain/ports/event-outbox';
import type { ManualFlowRun, ManualFlowRunRepository, ManualRunPayments } from '../../domain/ports/manual-flow-runs';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';

/** The facts a run without a payment decides on (docs/flows.md): each omitted one has a neutral value. */
export interface ManualRunInput {
  readonly amount?: number;
  readonly currency?: string;
  readonly installments?: number;
  readonly methodType?: string;
  readonly captureMethod?: string;
  readonly initiator?: string;
  readonly hasSplits?: boolean;
  readonly customerId?: string;
  readonly card?: { readonly brand?: string; readonly bin?: string };
  readonly metadata?: Record<string, FactValue>;
}

export interface ManualRunDeps extends FlowDeps {
  readonly outbox: EventOutbox;
  readonly runs: ManualFlowRunRepository;
  readonly payments: ManualRunPayments;
}

/**
 * POST /v1/flows/{id}/run: runs a published manual flow over a payment's facts or the caller's input, records the
 * run (read back with GET /v1/flows/{id}/runs/{runId}) and, in the same transaction, the flow.notification of each
 * webhook node it passed. Refused (nothing recorded): a flow that is not published (409), not manual (422).
 */
export class RunManualFlow {
  constructor(private readonly deps: ManualRunDeps) {}

  async execute(scope: TenantScope, flowId: string, body: { paymentId?: string; input?: ManualRunInput }) {
    if (body.paymentId !== undefined && body.input !== undefined) {
      throw new DomainError('validation_failed', 'Give paymentId or input, not both: a run over a payment decides on that payment\'s facts.', { param: 'body.input' });
    }
    const run = await this.deps.transactor.run(async (tx) => {
      const flow = await this.deps.flows.find(tx, scope, flowId);
      if (!flow) throw new NotFoundError('flow', flowId);
      const f = flow.toPrimitives();
      if (f.triggerEvent !== 'manual') {
        throw new DomainError('validation_failed', `Flow ${flowId} runs on ${f.triggerEvent}; only flows with triggerEvent manual run on this route.`, { param: 'path.id' });
      }
      const published = await this.deps.flows.findPublished(tx, scope, { triggerEvent: 'manual', flowId });
      if (!published) throw new DomainError('invalid_state', `Flow ${flowId} is not published; publish it before running it.`);
      const payment = body.paymentId !== undefined ? await this.deps.payments.find(tx, scope, body.paymentId) : null;
      if (body.paymentId !== undefined && !payment) throw new DomainError('resource_missing', `No such payment: ${body.paymentId}`, { param: 'body.paymentId' });
      const facts = payment ? payment.facts : inputFacts(body.input ?? {});
      const walked = walkManualRun(published.graph, facts);
      const recorded: ManualFlowRun = {
        id: this.deps.ids.next('frun_'),
        ...scope,
        flowId,
        version: published.version,
        paymentId: payment?.id ?? null,
        facts,
        outcome: walked.outcome,
        steps: walked.steps,
        variables: walked.variables,
        createdAt: this.deps.clock.now().toISOString(),
      };
      await this.deps.runs.insert(tx, recorded);
      if (walked.notifications.length > 0) {
        await this.deps.outbox.append(
          tx,
          walked.notifications.map((n) => ({
            type: 'flow.notification',
            scope,
            object: {
              object: 'flow_notification',
              id: `${recorded.id}.${n.nodeId}`,
              flowRunId: recorded.id,
              paymentId: recorded.paymentId,
              flow: { id: flowId, name: published.name, version: published.version },
              nodeId: n.nodeId,
              data: n.data,
              payment: payment ? { id: payment.id, status: payment.status, amount: payment.amount, currency: payment.currency } : null,
              createdAt: recorded.createdAt,
            },
          })),
        );
      }
      return recorded;
    });
    return flowRunObject(run);
  }

  async get(scope: TenantScope, flowId: string, runId: string) {
    const run = await this.deps.transactor.read((tx) => this.deps.runs.find(tx, scope, flowId, runId));
    if (!run) throw new NotFoundError('flow run', runId);
    return flowRunObject(run);
  }
}

function inputFacts(input: ManualRunInput): FlowPaymentFacts {
  return {
    amount: input.amount ?? 0,
    currency: input.currency ?? 'BRL',
    installments: input.installments ?? 1,
    methodType: input.methodType ?? 'card',
    captureMethod: input.captureMethod ?? 'automatic',
    initiator: input.initiator ?? 'merchant',
    hasSplits: input.hasSplits ?? false,
    customerId: input.customerId ?? null,
    cardBrand: input.card?.brand ?? null,
    cardBin: input.card?.bin ?? null,
    metadata: input.metadata ?? {},
  };
}

export function flowRunObject(run: ManualFlowRun) {
  return {
    object: 'flow_run' as const,
    id: run.id,
    flowId: run.flowId,
    version: run.version,
    paymentId: run.paymentId,
    facts: run.facts,
    outcome: run.outcome,
    steps: run.steps,
    variables: run.variables,
    environment: run.environment,
    createdAt: run.createdAt,
  };
}
