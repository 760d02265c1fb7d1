import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ServiceMetrics } from '../../../infrastructure/metrics/service-metrics';
import { registerDatabaseGauges } from '../../../infrastructure/metrics/database-gauges';
import type { Orm } from '../../../infrastructure/persistence/orm';
import type { EventTransport } from '../../../infrastructure/messaging/event-transport';
import { REPOSITORY, readRepositoryFile } from '../../support/deployment-files';

/** Every series name the service serves: each family, and a histogram's _bucket, _count and _sum. */
function servedSeriesNames(): Set<string> {
  const metrics = new ServiceMetrics();
  // Registration only: nothing is read from these until a scrape.
  registerDatabaseGauges(metrics, { orm: {} as Orm, transport: {} as EventTransport });
  metrics.collectProcessMetrics();
  const names = new Set<string>();
  for (const family of metrics.registry.getMetricsAsArray()) {
    names.add(family.name);
    if (String(family.type) === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(family.name + suffix);
  }
  return names;
}

/** Metric names a PromQL expression uses: identifiers of our namespace (label names and functions are not pos_). */
function metricNamesIn(expr: string): string[] {
  return [...expr.matchAll(/\bpos_[a-zA-Z0-9_]+/g)].map((m) => m[0]);
}

function balanced(expr: string): boolean {
  let depth = 0;
  for (const char of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if ('({['.includes(char)) depth += 1;
    if (')}]'.includes(char)) depth -= 1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

describe('deploy/prometheus/alerts.yaml and deploy/grafana/*.json', () => {
  const served = servedSeriesNames();

  it('every metric the service serves is named pos_ (contract.md 8)', () => {
    expect(served.size).to.be.greaterThan(20);
    for (const name of served) expect(name).to.match(/^pos_/);
  });

  it('the alert rules parse, name the four required alerts, and use only metrics the service serves', () => {
    const document = parse(readRepositoryFile('deploy/prometheus/alerts.yaml')) as { groups: Array<{ name: string; rules: Array<Record<string, any>> }> };
    const rules = document.groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).to.include.members(['ApprovalRateDrop', 'OutboxLag', 'WebhookFailureRate', 'AcquirerErrorRate']);
    for (const rule of rules) {
      expect(rule.expr, rule.alert).to.be.a('string');
      expect(balanced(rule.expr), `${rule.alert}: unbalanced brackets`).to.equal(true);
      expect(rule.for, rule.alert).to.match(/^\d+[smh]$/);
      expect(rule.labels?.severity, rule.alert).to.be.oneOf(['page', 'ticket']);
      expect(rule.annotations?.summary, rule.alert).to.be.a('string').and.not.empty;
      const names = metricNamesIn(rule.expr);
      expect(names, rule.alert).to.not.be.empty;
      for (const name of names) expect(served.has(name), `${rule.alert} uses ${name}, which the service does not serve`).to.equal(true);
    }
  });

  it("each dashboard parses and its queries use only metrics the service serves", () => {
    const folder = path.join(REPOSITORY, 'deploy', 'grafana');
    const files = fs.readdirSync(folder).filter((name) => name.endsWith('.json'));
    expect(files).to.not.be.empty;
    for (const file of files) {
      const dashboard = JSON.parse(fs.readFileSync(path.join(folder, file), 'utf8')) as { uid: string; title: string; panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
      expect(dashboard.uid, file).to.be.a('string').and.not.empty;
      const expressions = dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })));
      expect(expressions.length, file).to.be.greaterThan(10);
      for (const { panel, expr } of expressions) {
        expect(balanced(expr), `${file} ${panel}: unbalanced brackets`).to.equal(true);
        const names = metricNamesIn(expr);
        expect(names, `${file} ${panel}`).to.not.be.empty;
        for (const name of names) expect(served.has(name), `${file} panel "${panel}" uses ${name}, which the service does not serve`).to.equal(true);
      }
    }
  });
});
