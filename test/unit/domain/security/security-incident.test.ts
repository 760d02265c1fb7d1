import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import {
  applyIncidentAction,
  INCIDENT_STATUSES,
  INCIDENT_TRANSITIONS,
  openIncident,
  type SecurityIncident,
} from '../../../../domain/security/security-incident';

const now = new Date('2026-11-22T04:10:00Z');
const REASON = 'Checked with the merchant, false alarm';
const incident = (emailEnabled = true): SecurityIncident =>
  openIncident({
    id: 'sin_1',
    organizationId: 'org_1',
    environment: 'live',
    emailEnabled,
    now,
    signal: {
      kind: 'client_ip',
      valueHash: 'abc',
      reason: 'declined_threshold',
      declinedCount: 10,
      distinctCards: 1,
      firstSeenAt: now,
      lastSeenAt: now,
    },
  });

describe('security incident', () => {
  it('opens blocked, with an audit entry', () => {
    const opened = incident();
    expect(opened).to.include({ status: 'open', blocked: true, emailStatus: 'pending' });
    expect(opened.audit).to.have.length(1);
  });

  it('walks the status table', () => {
    expect(INCIDENT_STATUSES).to.deep.equal(['open', 'acknowledged', 'resolved']);
    expect(INCIDENT_TRANSITIONS).to.deep.equal({
      open: { acknowledge: 'acknowledged', resolve: 'resolved' },
      acknowledged: { resolve: 'resolved' },
      resolved: {},
    });
    const acknowledged = applyIncidentAction(incident(), 'acknowledge', REASON, 'usr_1', now);
    expect(acknowledged.status).to.equal('acknowledged');
    expect(() => applyIncidentAction(acknowledged, 'acknowledge', REASON, 'usr_1', now)).to.throw(DomainError).with.property('code', 'invalid_state');
  });

  it('walks every (status, action) pair: status actions follow the table, unblock and retry_email never move the status', () => {
    const expected: Record<string, Record<string, string>> = {
      open: { acknowledge: 'acknowledged', resolve: 'resolved' },
      acknowledged: { resolve: 'resolved' },
      resolved: {},
    };
    for (const status of INCIDENT_STATUSES) {
      for (const action of ['acknowledge', 'resolve'] as const) {
        const start = { ...incident(), status };
        const target = expected[status]![action];
        if (target) expect(applyIncidentAction(start, action, REASON, 'usr_1', now).status).to.equal(target);
        else expect(() => applyIncidentAction(start, action, REASON, 'usr_1', now)).to.throw(DomainError).with.property('code', 'invalid_state');
      }
      const failed = { ...incident(), status, emailStatus: 'failed' as const };
      expect(applyIncidentAction(failed, 'unblock', REASON, 'usr_1', now).status).to.equal(status);
      expect(applyIncidentAction(failed, 'retry_email', REASON, 'usr_1', now).status).to.equal(status);
    }
  });

  it('resolving keeps the block; unblock removes it explicitly, once', () => {
    const resolved = applyIncidentAction(incident(), 'resolve', REASON, 'usr_1', now);
    expect(resolved).to.include({ status: 'resolved', blocked: true });
    const unblocked = applyIncidentAction(resolved, 'unblock', REASON, 'usr_1', now);
    expect(unblocked.blocked).to.equal(false);
    expect(() => applyIncidentAction(unblocked, 'unblock', REASON, 'usr_1', now)).to.throw(DomainError).with.property('code', 'invalid_state');
  });

  it('records every action with its reason and actor in the audit trail', () => {
    const after = applyIncidentAction(applyIncidentAction(incident(), 'acknowledge', REASON, 'usr_1', now), 'unblock', 'Unblocking after review', 'usr_2', now);
    expect(after.audit.slice(1).map((e) => [e.action, e.reason, e.actorUserId])).to.deep.equal([
      ['acknowledge', REASON, 'usr_1'],
      ['unblock', 'Unblocking after review', 'usr_2'],
    ]);
  });

  it('requires a reason of 10 to 500 characters', () => {
    expect(() => applyIncidentAction(incident(), 'acknowledge', 'too short', 'usr_1', now)).to.throw(DomainError).with.property('code', 'validation_failed');
    expect(() => applyIncidentAction(incident(), 'acknowledge', 'x'.repeat(501), 'usr_1', now)).to.throw(DomainError);
    expect(applyIncidentAction(incident(), 'acknowledge', 'x'.repeat(500), 'usr_1', now).status).to.equal('acknowledged');
  });

  it('retry_email re-queues a failed alert and refuses when e-mail is disabled', () => {
    const failed = { ...incident(), emailStatus: 'failed' as const };
    expect(applyIncidentAction(failed, 'retry_email', REASON, 'usr_1', now).emailStatus).to.equal('pending');
    expect(() => applyIncidentAction(incident(false), 'retry_email', REASON, 'usr_1', now)).to.throw(DomainError).with.property('code', 'email_disabled');
  });
});
