import type { BearerAuthenticator } from '../../edge/http/principal';
import type { RouteDefinition } from '../../edge/http/route';
import type { Core } from './core';

/** A background loop (consumer, scheduler) started by the worker role and in embedded mode. */
export interface BackgroundWorker {
  readonly name: string;
  start(): Promise<{ stop(): Promise<void> }>;
}

/**
 * A worker that runs `task` every `intervalMs`, never two runs at once (a slow run delays the next), and
 * reports a failed run without stopping. The timer does not keep the process alive. Stopping starts no new run and
 * waits for the one in flight (contract.md 8: a draining process finishes what it holds; the caller bounds the wait).
 */
export function periodicWorker(name: string, intervalMs: number, task: () => Promise<unknown>, onError: (error: unknown) => void): BackgroundWorker {
  return {
    name,
    async start() {
      let running: Promise<void> | null = null;
      const timer = setInterval(() => {
        if (running) return;
        running = task()
          .then(() => undefined, onError)
          .finally(() => {
            running = null;
          });
      }, intervalMs);
      timer.unref();
      return {
        stop: async () => {
          clearInterval(timer);
          await running;
        },
      };
    },
  };
}

export interface ReadinessCheck {
  readonly name: string;
  /**
   * Resolves true when the dependency answers; false or a rejection makes /health/ready 503, or only reports the
   * check `degraded` (200) when `essential` is false (payments are taken without it).
   */
  check(): Promise<boolean>;
  /** Default true. */
  readonly essential?: boolean;
}

/** What a capability contributes once built. Everything is optional. */
export interface ModuleInstance {
  readonly routes?: readonly RouteDefinition[];
  readonly authenticators?: readonly BearerAuthenticator[];
  readonly workers?: readonly BackgroundWorker[];
  readonly readinessChecks?: readonly ReadinessCheck[];
  /** Merged into GET /health (e.g. loaded connectors, decline-table coverage). */
  health?(): Promise<Record<string, unknown>> | Record<string, unknown>;
  stop?(): Promise<void>;
}

/** A built module: its contributions, and the services it gives to the modules built after it. */
export interface BuiltModule<Provides extends object> extends ModuleInstance {
  readonly provides: Provides;
}

/**
 * A capability (payments, webhooks, identity...). `Needs` is what it takes from the modules built before it (an
 * optional property is a dependency it can do without), `Provides` what it gives to those after it. `build` is a
 * property, not a method, so that TypeScript checks its parameter strictly: a `ModuleList` without what a module
 * needs cannot take that module (a compile error, not a failed lookup at start).
 */
export interface ModuleDefinition<Needs = unknown, Provides extends object = {}> {
  readonly name: string;
  readonly build: (core: Core, needs: Needs) => Promise<BuiltModule<Provides>> | BuiltModule<Provides>;
}

/** The services a module list provides once built (e.g. `ServicesOf<typeof MODULES>`). */
export type ServicesOf<List> = List extends ModuleList<infer Provided> ? Provided : never;

/**
 * Modules in build order, each given the typed services of the modules before it:
 * `moduleList().with(FLOWS_MODULE).with(CONNECTORS_MODULE)`. Immutable: `with` returns a longer list.
 */
export class ModuleList<Provided extends object> {
  private constructor(
    readonly names: readonly string[],
    private readonly buildAll: (core: Core) => Promise<{ readonly instances: readonly ModuleInstance[]; readonly services: Provided }>,
  ) {}

  static empty(): ModuleList<{}> {
    return new ModuleList([], async () => ({ instances: [], services: {} }));
  }

  with<Provides extends object>(module: ModuleDefinition<Provided, Provides>): ModuleList<Provided & Provides> {
    return new ModuleList([...this.names, module.name], async (core) => {
      const before = await this.buildAll(core);
      const built = await module.build(core, before.services);
      // Two providers of one service would silently shadow each other in the merged object.
      const twice = Object.keys(built.provides).filter((name) => Object.hasOwn(before.services, name));
      if (twice.length > 0) throw new Error(`module ${module.name} provides ${twice.join(', ')} again`);
      return { instances: [...before.instances, built], services: { ...before.services, ...built.provides } };
    });
  }

  /** Builds every module in order; each module's instance, and every service they provide. */
  build(core: Core): Promise<{ readonly instances: readonly ModuleInstance[]; readonly services: Provided }> {
    return this.buildAll(core);
  }
}

/** The start of every module list. */
export function moduleList(): ModuleList<{}> {
  return ModuleList.empty();
}
