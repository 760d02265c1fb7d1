import { timingSafeEqual } from 'node:crypto';
import type { CheckoutSecrets, IssuedClientSecret } from '../../domain/ports/checkout-secrets';
import type { CredentialCipher } from '../../domain/ports/credential-cipher';
import { openSealedText, sealText } from './sealed-text';
import { RandomPool } from './random-pool';
import { sha256Digest } from './constant-time-equal';

/**
 * `<paymentId>_secret_<32 random bytes, base64url>`, sealed with the credentials key for the payment (the context
 * binds it to that payment: copied to another, it does not open).
 */
export class SealedCheckoutSecrets implements CheckoutSecrets {
  private readonly random = new RandomPool();

  constructor(private readonly cipher: CredentialCipher) {}

  issue(paymentId: string): IssuedClientSecret {
    const secret = `${paymentId}_secret_${this.random.bytes(32).toString('base64url')}`;
    return { secret, sealed: sealText(this.cipher, secret, contextOf(paymentId)), sha256: sha256Digest(secret).toString('hex') };
  }

  reveal(paymentId: string, sealed: string): string {
    return openSealedText(this.cipher, sealed, contextOf(paymentId));
  }

  matches(presented: string, expectedSha256: string): boolean {
    const expected = Buffer.from(expectedSha256, 'hex');
    // Both sides are digests of equal length, so the comparison takes the same time whatever was presented.
    return expected.length === 32 && timingSafeEqual(sha256Digest(presented), expected);
  }
}

function contextOf(paymentId: string): string {
  return `payment:${paymentId}:client_secret`;
}
