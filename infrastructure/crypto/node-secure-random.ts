import { randomBytes } from 'node:crypto';
import type { SecureRandom } from '../../domain/ports/secure-random';

export class NodeSecureRandom implements SecureRandom {
  bytes(length: number): Uint8Array {
    return randomBytes(length);
  }
}
