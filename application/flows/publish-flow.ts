import { accountIdsOf, publishProblems, splitRecipientIdsOf, type AccountFacts } from '../../domain/flow/publish-check';
import { DomainError, NotFoundError } from '../../domain/shared/domain-error';
import type { TenantScope } from '../../domain/shared/environment';
import type { FlowDeps } from './flow-deps';
import { flowObject } from './flow-object';

/**
 * POST /v1/flows/{id}/publish: validates the graph (the draft, or the stored version named in the body to roll
 * back), stores the draft as the next version when it changed, and makes the flow the environment's active flow
 * for its trigger event; the flow that was active stays published (payments may still name it by flowId) but
 * is no longer the default. One transaction, serialized per trigger event, so two flows published at once never
 * both end up active. Every fault of the graph is reported at once, in `details`.
 *
 * The accounts' capabilities are their adapters' (Describe), asked before the transaction so that no adapter call holds
 * it (and the flow's locks) open; the catalog caches them and bounds each Describe by the connector deadline. A
 * connector whose adapter cannot be described now (down, not configured) leaves its accounts' capabilities unknown:
 * publishing does not refuse on capability grounds then, and the node checks again when it runs.
 */
export class PublishFlow {
  constructor(private readonly deps: FlowDeps) {}

  async execute(scope: TenantScope, id: string, input: { version?: number } = {}) {
    const capabilities = (await this.deps.capabilities?.known()) ?? new Map<string, readonly string[]>();
    return this.deps.transactor.run(async (tx) => {
      const flow = await this.deps.flows.find(tx, scope, id, { forUpdate: true });
      if (!flow) throw new NotFoundError('flow', id);
      const draft = flow.toPrimitives();
      await this.deps.flows.lockTrigger(tx, scope, draft.triggerEvent);

      const latest = draft.latestVersion > 0 ? await this.deps.flows.findVersion(tx, scope, id, draft.latestVersion) : null;
      const named = input.version !== undefined ? await this.deps.flows.findVersion(tx, scope, id, input.version) : null;
      if (input.version !== undefined && !named) {
        throw new DomainError('validation_failed', `Flow ${id} has no version ${input.version}.`, { param: 'body.version' });
      }
      const graph = named?.graph ?? draft.graph;
      const held = await this.deps.flows.holdAccounts(tx, scope, accountIdsOf(graph));
      const accounts = new Map<string, AccountFacts>(
        [...held].map(([accountId, account]) => {
          const known = capabilities.get(account.connectorSlug);
          return [accountId, known ? { kind: account.kind, capabilities: known } : { kind: account.kind }];
        }),
      );
      const recipientIds = splitRecipientIdsOf(graph);
      const recipients = recipientIds.length && this.deps.recipients ? await this.deps.recipients.existingIds(tx, scope, recipientIds) : new Set<string>();
      const problems = publishProblems(graph, draft.triggerEvent, accounts, recipients);
      if (problems.length) {
        const more = problems.length > 1 ? ` (and ${problems.length - 1} more, in details)` : '';
        throw new DomainError('validation_failed', `The flow cannot be published: ${problems[0]!.message}${more}`, { param: problems[0]!.param, details: problems });
      }

      const now = this.deps.clock.now();
      const previous = await this.deps.flows.findActive(tx, scope, draft.triggerEvent, { forUpdate: true });
      const { version, created } = flow.publish({
        version: input.version,
        draftMatchesLatest: latest !== null && JSON.stringify(latest.graph) === JSON.stringify(draft.graph),
        now,
      });
      if (created) {
        await this.deps.flows.insertVersion(tx, scope, {
          flowId: id, version, triggerEvent: draft.triggerEvent, graph: draft.graph, accountIds: accountIdsOf(draft.graph), publishedAt: now.toISOString(),
        });
      }
      // The one-active-per-trigger index is checked per statement: the old flow steps down first.
      if (previous && previous.id !== id) {
        previous.deactivate(now);
        await this.deps.flows.update(tx, previous);
      }
      await this.deps.flows.update(tx, flow);
      return flowObject(flow.toPrimitives());
    });
  }
}
