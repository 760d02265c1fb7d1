import type { Environment } from '../shared/environment';

/** Makes API key secrets and the one-way hash they are stored and looked up by. */
export interface ApiKeySecrets {
  generate(environment: Environment): string;
  hash(secret: string): string;
}
