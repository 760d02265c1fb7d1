import { createHash } from 'node:crypto';
import type { SecureRandom } from '../ports/secure-random';
import { base32Encode } from './totp';

/**
 * Recovery codes: single-use second factors for a lost authenticator. Ten per set, shown once, stored as
 * SHA-256 digests (each code carries 125 bits of entropy, so a slow hash adds nothing). Generating a
 * new set replaces the previous one entirely.
 */
export const RECOVERY_CODE_COUNT = 10;
const GROUPS = 5;
const GROUP_LENGTH = 5;

export interface RecoveryCodeRecord {
  readonly hash: string;
  readonly usedAt: Date | null;
}

/** Format `XXXXX-XXXXX-XXXXX-XXXXX-XXXXX` (29 characters, base32 alphabet, inside the 24-40 bound). */
export function generateRecoveryCodes(random: SecureRandom, count = RECOVERY_CODE_COUNT): string[] {
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = base32Encode(random.bytes(16)).slice(0, GROUPS * GROUP_LENGTH);
    const groups: string[] = [];
    for (let g = 0; g < GROUPS; g++) groups.push(body.slice(g * GROUP_LENGTH, (g + 1) * GROUP_LENGTH));
    codes.push(groups.join('-'));
  }
  return codes;
}

/** Users retype codes: case, spaces and dashes do not matter. */
export function normalizeRecoveryCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(code)).digest('hex');
}

export function recoveryRecords(codes: readonly string[]): RecoveryCodeRecord[] {
  return codes.map((code) => ({ hash: hashRecoveryCode(code), usedAt: null }));
}

export function availableRecoveryCodes(records: readonly RecoveryCodeRecord[]): number {
  return records.filter((record) => record.usedAt === null).length;
}

/**
 * Marks the submitted code used. Returns the new records, or null when the code is unknown or was
 * already used (both look the same to the caller, so a used code reveals nothing).
 */
export function consumeRecoveryCode(
  records: readonly RecoveryCodeRecord[],
  code: string,
  at: Date,
): RecoveryCodeRecord[] | null {
  const hash = hashRecoveryCode(code);
  const index = records.findIndex((record) => record.hash === hash && record.usedAt === null);
  if (index < 0) return null;
  return records.map((record, i) => (i === index ? { hash: record.hash, usedAt: at } : record));
}
