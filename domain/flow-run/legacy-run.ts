/**
 * Payments stored before flow runs were recorded kept a published flow's planned path and, once routing ended, the
 * steps taken (`{flowId, name, version, plan, steps}` with `{nodeId, type, port}` steps). Read back, such a record
 * becomes an ended run with those steps, so every reader sees one shape.
 */
import type { FlowNodeType } from '../flow/flow-graph';
import { newFlowRun, type FlowRunState } from './flow-run';

interface LegacyFlowRecord {
  flowId: string;
  name: string;
  version: number;
  plan?: unknown;
  steps?: Array<{ nodeId: string; type: FlowNodeType; port: string | null }> | null;
}

export function isLegacyFlowRecord(value: unknown): value is LegacyFlowRecord {
  return typeof value === 'object' && value !== null && 'plan' in value && !('status' in value);
}

export function runOfLegacyRecord(record: LegacyFlowRecord, at: string): FlowRunState {
  return {
    ...newFlowRun({ flowId: record.flowId, name: record.name, version: record.version }),
    status: 'ended',
    steps: (record.steps ?? []).map((step) => ({ nodeId: step.nodeId, type: step.type, exit: step.port, startedAt: at, endedAt: at })),
  };
}
