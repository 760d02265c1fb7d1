import { Flow } from '../../domain/flow/flow';
import type { FlowGraph, FlowTriggerEvent } from '../../domain/flow/flow-graph';
import { flowTemplate } from '../../domain/flow/flow-templates';
import { cloneJson } from '../../domain/shared/clone-json';
import { DomainError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';
import { flowObject } from './flow-object';

export interface CreateFlowCommand {
  readonly scope: TenantScope;
  readonly name: string;
  readonly description?: string | null;
  readonly triggerEvent?: FlowTriggerEvent;
  readonly template?: string;
  readonly graph?: FlowGraph;
}

/** The draft a flow starts as when neither a graph nor a template is given: a lone trigger. */
const EMPTY_GRAPH: FlowGraph = { nodes: [{ id: 'trigger', type: 'trigger', position: { x: 0, y: 0 }, data: {} }], edges: [] };

/**
 * POST /v1/flows: a draft. A template fills the graph (and the trigger event) unless the body gives them; the
 * draft is checked for structure only, since an editor saves half-built graphs. Nothing runs until it is published.
 */
export class CreateFlow {
  constructor(private readonly deps: FlowDeps) {}

  async execute(command: CreateFlowCommand) {
    const template = command.template ? flowTemplate(command.template) : undefined;
    if (command.template && !template) throw new DomainError('validation_failed', `Unknown template ${command.template}.`, { param: 'body.template' });
    const flow = Flow.create({
      id: this.deps.ids.next('flw_'),
      organizationId: command.scope.organizationId,
      environment: command.scope.environment,
      name: command.name,
      description: command.description ?? null,
      triggerEvent: command.triggerEvent ?? template?.triggerEvent ?? 'payment.authorization_requested',
      template: template?.id ?? null,
      graph: cloneJson(command.graph ?? template?.graph ?? EMPTY_GRAPH),
      now: this.deps.clock.now(),
    });
    await this.deps.transactor.run((tx) => this.deps.flows.insert(tx, flow));
    return flowObject(flow.toPrimitives());
  }
}
