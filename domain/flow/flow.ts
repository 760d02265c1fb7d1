/**
 * A flow: a graph the merchant edits as a draft and publishes as numbered, immutable versions (contract.md 4).
 * Editing never changes what runs; publishing validates the draft, stores it as the next version (or re-uses
 * the latest when nothing changed, or re-publishes an earlier one to roll back) and makes the flow the
 * environment's active flow for its trigger event. Earlier versions are kept. A published flow is what
 * payments may run (the active one by default, any published one by `flowId`), so it cannot be deleted
 * before it is unpublished.
 */
import { cloneJson } from '../shared/clone-json';
import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/environment';
import { transition, type TransitionTable } from '../shared/state-machine';
import { structuralProblems, type FlowGraph, type FlowTriggerEvent } from './flow-graph';

export const FLOW_STATUSES = ['draft', 'published', 'deleted'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];
export const FLOW_TRIGGERS = ['edit', 'publish', 'unpublish', 'delete'] as const;
export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];

export const FLOW_TRANSITIONS: TransitionTable<FlowStatus, FlowTrigger> = {
  draft: { edit: 'draft', publish: 'published', delete: 'deleted' },
  published: { edit: 'published', publish: 'published', unpublish: 'draft' },
  deleted: {},
};

export interface FlowPrimitives {
  id: string;
  organizationId: string;
  environment: Environment;
  name: string;
  description: string | null;
  triggerEvent: FlowTriggerEvent;
  template: string | null;
  /** The draft: what PATCH edits and publish snapshots. */
  graph: FlowGraph;
  status: FlowStatus;
  /** The environment's flow for its trigger event (at most one per trigger). */
  active: boolean;
  /** The version payments run while published; null in draft. */
  publishedVersion: number | null;
  /** The highest version stored; 0 before the first publish. */
  latestVersion: number;
  /** The version the draft is identical to, null once the draft was edited after it. */
  draftVersion: number | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FlowDraftFields {
  name: string;
  description?: string | null;
  triggerEvent: FlowTriggerEvent;
  template?: string | null;
  graph: FlowGraph;
}

function assertStorable(graph: FlowGraph): void {
  const problems = structuralProblems(graph);
  if (problems.length) throw new DomainError('validation_failed', problems[0]!.message, { param: problems[0]!.param, details: problems });
}

export class Flow {
  private constructor(private state: FlowPrimitives) {}

  static create(input: FlowDraftFields & { id: string; organizationId: string; environment: Environment; now: Date }): Flow {
    assertStorable(input.graph);
    const at = input.now.toISOString();
    return new Flow({
      id: input.id,
      organizationId: input.organizationId,
      environment: input.environment,
      name: input.name,
      description: input.description ?? null,
      triggerEvent: input.triggerEvent,
      template: input.template ?? null,
      graph: input.graph,
      status: 'draft',
      active: false,
      publishedVersion: null,
      latestVersion: 0,
      draftVersion: null,
      publishedAt: null,
      createdAt: at,
      updatedAt: at,
    });
  }

  static fromPrimitives(state: FlowPrimitives): Flow {
    return new Flow(state);
  }

  get id(): string {
    return this.state.id;
  }

  get status(): FlowStatus {
    return this.state.status;
  }

  toPrimitives(): FlowPrimitives {
    return cloneJson(this.state);
  }

  /** PATCH: name and description always; the graph is the draft; the trigger only before the first publish. */
  edit(changes: Partial<Pick<FlowDraftFields, 'name' | 'description' | 'graph' | 'triggerEvent'>>, now: Date): void {
    transition('flow', FLOW_TRANSITIONS, this.state.status, 'edit');
    // Every check before any change: a refused edit leaves the flow as it was.
    const triggerChanges = changes.triggerEvent !== undefined && changes.triggerEvent !== this.state.triggerEvent;
    if (triggerChanges && this.state.latestVersion > 0) {
      throw new DomainError('invalid_state', 'The trigger event of a flow that was published cannot change; create another flow.', { param: 'body.triggerEvent' });
    }
    if (changes.graph !== undefined) assertStorable(changes.graph);
    if (triggerChanges) this.state.triggerEvent = changes.triggerEvent!;
    if (changes.graph !== undefined) {
      this.state.graph = changes.graph;
      this.state.draftVersion = null;
    }
    if (changes.name !== undefined) this.state.name = changes.name;
    if (changes.description !== undefined) this.state.description = changes.description;
    this.state.updatedAt = now.toISOString();
  }

  /**
   * Publishes the draft (a new version unless the draft is identical to the latest one) or, with `version`, an
   * earlier version. Returns the version now in force and whether it is new (its graph must then be stored).
   */
  publish(input: { version?: number; draftMatchesLatest: boolean; now: Date }): { version: number; created: boolean } {
    const s = this.state;
    const status = transition('flow', FLOW_TRANSITIONS, s.status, 'publish');
    let version: number;
    let created = false;
    if (input.version !== undefined) {
      if (input.version < 1 || input.version > s.latestVersion) {
        throw new DomainError('validation_failed', `Flow ${s.id} has no version ${input.version} (latest: ${s.latestVersion}).`, { param: 'body.version' });
      }
      version = input.version;
    } else if (s.latestVersion > 0 && (s.draftVersion === s.latestVersion || input.draftMatchesLatest)) {
      version = s.latestVersion;
      s.draftVersion = version;
    } else {
      version = ++s.latestVersion;
      s.draftVersion = version;
      created = true;
    }
    s.status = status;
    s.publishedVersion = version;
    s.active = true;
    s.publishedAt = input.now.toISOString();
    s.updatedAt = s.publishedAt;
    return { version, created };
  }

  /** Another flow of the same trigger event was published: this one stays published but is no longer the default. */
  deactivate(now: Date): void {
    this.state.active = false;
    this.state.updatedAt = now.toISOString();
  }

  /** Back to draft: payments stop running it (the active flow's environment falls back to direct routing). */
  unpublish(now: Date): void {
    this.state.status = transition('flow', FLOW_TRANSITIONS, this.state.status, 'unpublish');
    this.state.active = false;
    this.state.publishedVersion = null;
    this.state.updatedAt = now.toISOString();
  }

  /** Only a draft is deleted: a published flow may be running payments. */
  markDeleted(now: Date): void {
    this.state.status = transition('flow', FLOW_TRANSITIONS, this.state.status, 'delete');
    this.state.updatedAt = now.toISOString();
  }
}
