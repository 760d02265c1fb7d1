import { createHmac } from 'node:crypto';
import type { SecurityPolicy } from './security-policy';

/**
 * Card-testing detection as a pure function over the recent card attempts of one account and environment.
 * Signals are pseudonymized before they are stored or shown: the raw IP address or device id never leaves
 * the payment request, only a keyed hash of it (so the same address matches itself, and nothing else).
 */
export type SignalKind = 'client_ip' | 'device_id';

export interface CardAttempt {
  readonly at: Date;
  readonly clientIpHash: string | null;
  readonly deviceIdHash: string | null;
  /** A stable fingerprint of the card (vault token or BIN+last4 hash); null when unknown. */
  readonly cardFingerprint: string | null;
  readonly declined: boolean;
}

export interface CardTestingSignal {
  readonly kind: SignalKind;
  readonly valueHash: string;
  readonly reason: 'declined_threshold' | 'distinct_cards_threshold';
  readonly declinedCount: number;
  readonly distinctCards: number;
  readonly firstSeenAt: Date;
  readonly lastSeenAt: Date;
}

export function pseudonymize(kind: SignalKind, value: string, key: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${kind}:${value.trim().toLowerCase()}`).digest('hex').slice(0, 32);
}

export function detectCardTesting(attempts: readonly CardAttempt[], policy: SecurityPolicy, now: Date): CardTestingSignal[] {
  if (!policy.cardTesting.enabled) return [];
  const since = now.getTime() - policy.cardTesting.windowSeconds * 1000;
  const recent = attempts.filter((a) => a.at.getTime() > since && a.at.getTime() <= now.getTime());
  const groups = new Map<string, { kind: SignalKind; valueHash: string; attempts: CardAttempt[] }>();
  for (const attempt of recent) {
    const keys: Array<[SignalKind, string | null]> = [
      ['client_ip', attempt.clientIpHash],
      ['device_id', attempt.deviceIdHash],
    ];
    for (const [kind, valueHash] of keys) {
      if (!valueHash) continue;
      const key = `${kind}:${valueHash}`;
      const group = groups.get(key) ?? { kind, valueHash, attempts: [] };
      group.attempts.push(attempt);
      groups.set(key, group);
    }
  }
  const signals: CardTestingSignal[] = [];
  for (const group of groups.values()) {
    const declinedCount = group.attempts.filter((a) => a.declined).length;
    const distinctCards = new Set(group.attempts.map((a) => a.cardFingerprint).filter((f): f is string => f !== null)).size;
    const reason =
      declinedCount >= policy.cardTesting.declinedThreshold
        ? 'declined_threshold'
        : distinctCards >= policy.cardTesting.distinctCardsThreshold
          ? 'distinct_cards_threshold'
          : null;
    if (!reason) continue;
    const times = group.attempts.map((a) => a.at.getTime());
    signals.push({
      kind: group.kind,
      valueHash: group.valueHash,
      reason,
      declinedCount,
      distinctCards,
      firstSeenAt: new Date(Math.min(...times)),
      lastSeenAt: new Date(Math.max(...times)),
    });
  }
  return signals;
}
