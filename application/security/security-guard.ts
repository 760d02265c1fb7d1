import type { CardOutcome, CardPaymentContext, CardSecurity } from '../../domain/ports/card-security';
import type { Clock } from '../../domain/ports/clock';
import type { IdGenerator } from '../../domain/ports/id-generator';
import type { MembershipRepository } from '../../domain/ports/identity-repositories';
import type { Mailer } from '../../domain/ports/mailer';
import type { CardAttemptRepository, SecurityIncidentRepository } from '../../domain/ports/security-repositories';
import type { Transaction, Transactor } from '../../domain/ports/transactor';
import { detectCardTesting, pseudonymize } from '../../domain/security/card-testing';
import { formerSpellings, parseIpAddress } from '../../domain/shared/ip-address';
import { markEmail, openIncident, type SecurityIncident } from '../../domain/security/security-incident';
import { DEFAULT_SECURITY_POLICY, type SecurityPolicy } from '../../domain/security/security-policy';
import { DomainError } from '../../domain/shared/domain-error';
import type { Environment } from '../../domain/shared/environment';

export type { CardOutcome, CardPaymentContext };

export interface SecurityGuardDeps {
  readonly transactor: Transactor;
  readonly attempts: CardAttemptRepository;
  readonly incidents: SecurityIncidentRepository;
  readonly memberships: MembershipRepository;
  readonly mailer: Mailer;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  /** Key of the keyed hash that pseudonymizes addresses and devices. */
  readonly pseudonymizationKey: string;
  readonly policyOf?: (organizationId: string) => SecurityPolicy;
  readonly onBackgroundError?: (error: unknown, context: string) => void;
}

/**
 * Card-testing protection for the payment flow (contract.md section 7). Call `checkCardPayment` before a card
 * payment is sent to a connector, and `recordCardOutcome` once its result is known (approved or declined).
 */
export class SecurityGuard implements CardSecurity {
  constructor(private readonly deps: SecurityGuardDeps) {}

  policy(organizationId: string): SecurityPolicy {
    return this.deps.policyOf?.(organizationId) ?? DEFAULT_SECURITY_POLICY;
  }

  /** Throws DomainError `blocked_by_security_policy` (403) while an incident blocks the IP or device. */
  async checkCardPayment(context: CardPaymentContext, tx?: Transaction): Promise<void> {
    const hashes = this.hashes(context);
    const values = [hashes.clientIpHash, hashes.deviceIdHash, ...this.formerClientIpHashes(context)].filter((v): v is string => v !== null);
    if (values.length === 0) return;
    const find = (t: Transaction) => this.deps.incidents.findBlocking(t, context.organizationId, context.environment, values);
    const blocking = tx ? await find(tx) : await this.deps.transactor.read(find);
    if (blocking.length > 0) {
      throw new DomainError(
        'blocked_by_security_policy',
        'Card payments from this address or device are blocked by the account security policy',
        { incidentId: blocking[0]!.id },
      );
    }
  }

  /** Records one card attempt and opens incidents (with alert e-mails) for newly crossed thresholds. */
  async recordCardOutcome(outcome: CardOutcome): Promise<SecurityIncident[]> {
    const hashes = this.hashes(outcome);
    if (!hashes.clientIpHash && !hashes.deviceIdHash) return [];
    const opened = await this.deps.transactor.run((tx) => this.recordWithin(tx, outcome));
    for (const incident of opened) void this.sendAlert(incident);
    return opened;
  }

  /** The same inside the caller's transaction; the caller then calls `sendAlert` for each returned incident. */
  async recordWithin(tx: Transaction, outcome: CardOutcome): Promise<SecurityIncident[]> {
    const hashes = this.hashes(outcome);
    if (!hashes.clientIpHash && !hashes.deviceIdHash) return [];
    const now = this.deps.clock.now();
    const policy = this.policy(outcome.organizationId);
    const cardFingerprint = outcome.cardFingerprint ? pseudonymize('device_id', `card:${outcome.cardFingerprint}`, this.deps.pseudonymizationKey) : null;
    await this.deps.attempts.lockScope(tx, outcome.organizationId, outcome.environment);
    await this.deps.attempts.insert(tx, {
      organizationId: outcome.organizationId,
      environment: outcome.environment,
      at: now,
      ...hashes,
      cardFingerprint,
      declined: outcome.declined,
    });
    const since = new Date(now.getTime() - policy.cardTesting.windowSeconds * 1000);
    const recent = await this.deps.attempts.listRecent(tx, outcome.organizationId, outcome.environment, hashes, since);
    const signals = detectCardTesting(recent, policy, now).filter(
      (s) => s.valueHash === hashes.clientIpHash || s.valueHash === hashes.deviceIdHash,
    );
    if (signals.length === 0) return [];
    const alreadyBlocked = new Set(
      (await this.deps.incidents.findBlocking(tx, outcome.organizationId, outcome.environment, signals.map((s) => s.valueHash))).map(
        (i) => i.signal.valueHash,
      ),
    );
    const opened: SecurityIncident[] = [];
    for (const signal of signals) {
      if (alreadyBlocked.has(signal.valueHash)) continue;
      const incident = openIncident({
        id: this.deps.ids.next('sin_'),
        organizationId: outcome.organizationId,
        environment: outcome.environment,
        signal,
        emailEnabled: this.deps.mailer.enabled && policy.alerts.emailOnIncident,
        now,
      });
      await this.deps.incidents.insert(tx, incident);
      opened.push(incident);
    }
    return opened;
  }

  /** E-mails the account's owners and administrators; the result is kept on the incident (retry_email re-sends). */
  async sendAlert(incident: SecurityIncident): Promise<void> {
    if (incident.emailStatus !== 'pending') return;
    let status: 'sent' | 'failed' = 'sent';
    try {
      const recipients = await this.deps.transactor.read((tx) => this.deps.memberships.listAdminEmails(tx, incident.organizationId));
      if (recipients.length === 0) return;
      for (const to of recipients) {
        await this.deps.mailer.send({
          to,
          subject: `Security alert: suspected card testing (${incident.environment})`,
          text:
            `We noticed a pattern that suggests card testing on your ${incident.environment} account (${incident.organizationId}).\n\n` +
            `Signal: ${incident.signal.kind} ${incident.signal.valueHash} (pseudonymized)\n` +
            `Declined card payments: ${incident.signal.declinedCount}; distinct cards: ${incident.signal.distinctCards}\n` +
            `Between ${incident.signal.firstSeenAt.toISOString()} and ${incident.signal.lastSeenAt.toISOString()}\n\n` +
            `New card payments from this signal are blocked until an administrator unblocks it (incident ${incident.id}).\n` +
            `This report does not confirm fraud by itself.\n`,
        });
      }
    } catch (error) {
      status = 'failed';
      this.deps.onBackgroundError?.(error, 'security alert e-mail');
    }
    try {
      await this.deps.transactor.run(async (tx) => {
        const current = await this.deps.incidents.findById(tx, incident.organizationId, incident.environment, incident.id, true);
        if (current) await this.deps.incidents.update(tx, markEmail(current, status, this.deps.clock.now()));
      });
    } catch (error) {
      this.deps.onBackgroundError?.(error, 'security alert e-mail status');
    }
  }

  /**
   * An address is pseudonymized in its canonical form, so every spelling of it (`2001:0db8::5`, `2001:db8:0:0::5`,
   * `::ffff:203.0.113.77` for `203.0.113.77`) is one signal. Canonicalised here as well as where a payment enters,
   * because payments stored before that (read again by recovery) may carry another spelling.
   */
  private hashes(context: CardPaymentContext): { clientIpHash: string | null; deviceIdHash: string | null } {
    const key = this.deps.pseudonymizationKey;
    const clientIp = context.clientIp ? (parseIpAddress(context.clientIp)?.canonical ?? context.clientIp) : null;
    return {
      clientIpHash: clientIp ? pseudonymize('client_ip', clientIp, key) : null,
      deviceIdHash: context.deviceId ? pseudonymize('device_id', context.deviceId, key) : null,
    };
  }

  /**
   * Incidents opened while addresses were compared as text hold the hash of the spelling the payment sent. So that
   * their blocks still hold, the check also looks for the usual other spellings (IPv4-mapped, uncompressed IPv6).
   * Only for blocks: new attempts and incidents use the canonical hash alone.
   */
  private formerClientIpHashes(context: CardPaymentContext): string[] {
    const address = context.clientIp ? parseIpAddress(context.clientIp) : null;
    if (!address) return [];
    return formerSpellings(address).map((spelling) => pseudonymize('client_ip', spelling, this.deps.pseudonymizationKey));
  }
}
