import { InvalidStateError } from './domain-error';

/**
 * A state machine written as a transition table: `table[state][trigger]` is the next state.
 * One function answers every "may this happen now?" question, so no call site keeps its own deny-list.
 */
export type TransitionTable<S extends string, T extends string> = Record<S, Partial<Record<T, S>>>;

export function transition<S extends string, T extends string>(
  resource: string,
  table: TransitionTable<S, T>,
  state: S,
  trigger: T,
): S {
  const next = table[state]?.[trigger];
  if (next === undefined) throw new InvalidStateError(resource, state, trigger);
  return next;
}

export function allowedTriggers<S extends string, T extends string>(table: TransitionTable<S, T>, state: S): T[] {
  return Object.keys(table[state] ?? {}) as T[];
}
