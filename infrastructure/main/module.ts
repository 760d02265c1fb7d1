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
 * reports a failed run without stopping. The timer does not keep the process alive.
 */
export function periodicWorker(name: string, intervalMs: number, task: () => Promise<unknown>, onError: (error: unknown) => void): BackgroundWorker {
  return {
    name,
    async start() {
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        task()
          .catch(onError)
          .finally(() => {
            running = false;
          });
      }, intervalMs);
      timer.unref();
      return { stop: async () => clearInterval(timer) };
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

/**
 * A capability (payments, webhooks, identity...). Modules are built in the order of `MODULES`
 * (infrastructure/main/modules.ts); a module may use services provided by modules before it and must
 * provide what later modules need through `core.services`.
 */
export interface ModuleDefinition {
  readonly name: string;
  build(core: Core): Promise<ModuleInstance> | ModuleInstance;
}

/** Services modules share, by name (e.g. 'connectorAccounts', 'securityGuard'). */
export class ServiceRegistry {
  private readonly services = new Map<string, unknown>();

  provide<T>(name: string, service: T): void {
    if (this.services.has(name)) throw new Error(`service ${name} is provided twice`);
    this.services.set(name, service);
  }

  get<T>(name: string): T {
    if (!this.services.has(name)) throw new Error(`service ${name} is not provided (check module order)`);
    return this.services.get(name) as T;
  }

  find<T>(name: string): T | undefined {
    return this.services.get(name) as T | undefined;
  }

  /** For a dependency on a module built later: resolved on first use. */
  lazy<T>(name: string): () => T {
    return () => this.get<T>(name);
  }
}
