/**
 * compose.yaml (contract.md 8): valid against the Compose Specification's schema, and it starts what the contract
 * lists (PostgreSQL, NATS JetStream, migrate, two edges, a worker, the sandbox adapters) with roles, variables and
 * addresses the code agrees with. Offline: the schema is vendored (test/support/schemas/README.md).
 */
import Ajv from 'ajv';
import { expect } from 'chai';
import { ADAPTER_STARTERS } from '../../../infrastructure/main/connector-process-entry';
import { isAdapterRole, isServiceRole } from '../../../infrastructure/main/process-roles';
import composeSchema from '../../support/schemas/compose-spec.json';
import { environmentNamesReadByCode, parseComposeText, readRepositoryFile } from '../../support/deployment-files';

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  stop_grace_period?: string;
  expose?: Array<string | number>;
}

const SERVICE_IMAGE = 'payment-orchestration-service:local';

/** Compiled once: the schema is large. */
const validateCompose = (() => {
  // The schema names its draft by an https URL Ajv does not register; Ajv's default draft is the same draft-07.
  const { $schema: _draft, ...schema } = composeSchema as Record<string, unknown>;
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
})();

function validateAgainstComposeSchema(document: unknown): string[] {
  const validate = validateCompose;
  return validate(document) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
}

describe('compose.yaml', () => {
  const compose = parseComposeText(readRepositoryFile('compose.yaml'));
  const services = compose['services'] as Record<string, ComposeService>;
  /** The containers of the service's own image, by name. */
  const ours = Object.entries(services).filter(([, service]) => service.image === SERVICE_IMAGE);
  const byRole = (role: string) => ours.filter(([, service]) => service.command?.[0] === role).map(([name]) => name);

  it('is valid against the Compose Specification schema', () => {
    expect(validateAgainstComposeSchema(compose)).to.deep.equal([]);
  });

  it('the schema check refuses a misspelt field (the validation is live)', () => {
    const broken = parseComposeText(readRepositoryFile('compose.yaml').replace('    command: ["worker"]', '    comand: ["worker"]'));
    expect(validateAgainstComposeSchema(broken).join('\n')).to.match(/\/services\/worker must NOT have additional properties.*comand/);
  });

  it('starts PostgreSQL, NATS with JetStream, migrate, two edges, a worker and both sandbox adapters', () => {
    expect(services['postgres']?.image).to.match(/^postgres:/);
    expect(services['nats']?.image).to.match(/^nats:/);
    expect(services['nats']?.command).to.include('--jetstream');
    expect(byRole('migrate')).to.have.length(1);
    expect(byRole('edge')).to.have.length(2);
    expect(byRole('worker')).to.have.length.at.least(1);
    expect(ours.map(([, service]) => service.command?.join(' '))).to.include.members(['connector sandbox', 'antifraud sandbox-antifraud']);
  });

  it('builds every container of the service from the one image', () => {
    for (const [name, service] of ours) expect(service.build, name).to.equal('.');
  });

  it('starts only roles main.ts accepts and adapters it ships', () => {
    for (const [name, service] of ours) {
      const [role, slug] = service.command ?? [];
      expect(role, name).to.be.a('string');
      if (isAdapterRole(role!)) expect(ADAPTER_STARTERS, name).to.have.property(slug!);
      else expect(isServiceRole(role!), `${name}: role ${role}`).to.equal(true);
    }
  });

  it('sets only environment variables the code reads', () => {
    const read = environmentNamesReadByCode();
    for (const [name, service] of ours) {
      for (const variable of Object.keys(service.environment ?? {})) expect(read.has(variable), `${name}: ${variable} is read by no code`).to.equal(true);
    }
  });

  it('runs the edges and workers once the migrations are applied, and migrate once the servers are healthy', () => {
    for (const name of [...byRole('edge'), ...byRole('worker')]) {
      expect(services[name]!.depends_on?.['migrate']?.condition, name).to.equal('service_completed_successfully');
    }
    const migrate = services[byRole('migrate')[0]!]!;
    expect(migrate.depends_on?.['postgres']?.condition).to.equal('service_healthy');
    expect(migrate.depends_on?.['nats']?.condition).to.equal('service_healthy');
  });

  it('gives every process of the service one credentials key: the same one exported, or one generated in a shared DATA_DIR', () => {
    for (const name of [...byRole('migrate'), ...byRole('edge'), ...byRole('worker')]) {
      const service = services[name]!;
      expect(service.environment?.['CREDENTIALS_KEY'], name).to.equal('${CREDENTIALS_KEY:-}');
      // DATA_DIR is the image's default, /app/.data (Dockerfile): where a key is generated without CREDENTIALS_KEY.
      expect(service.environment, name).not.to.have.property('DATA_DIR');
      expect(service.volumes, name).to.include('keys:/app/.data');
    }
  });

  it('points the edges and workers at adapters it runs, on the ports they listen on', () => {
    const adapters = String(services[byRole('edge')[0]!]!.environment?.['CONNECTOR_ADAPTERS']).split(',');
    expect(adapters).to.have.length(2);
    for (const entry of adapters) {
      const [slug, address] = entry.split('=');
      const [host, port] = address!.split(':');
      const adapter = services[host!];
      expect(adapter?.command?.[1], entry).to.equal(slug);
      expect(String(adapter?.environment?.['PORT']), entry).to.equal(port);
    }
  });

  it('points the sandbox acquirer at the CoreNotifications server the worker serves', () => {
    const worker = services[byRole('worker')[0]!]!;
    const acquirer = ours.find(([, service]) => service.command?.join(' ') === 'connector sandbox')![1];
    expect(acquirer.environment?.['CORE_NOTIFICATIONS_ADDRESS']).to.equal(`${byRole('worker')[0]}:${worker.environment?.['CORE_NOTIFICATIONS_PORT']}`);
    expect(worker.environment?.['CORE_NOTIFICATIONS_HOST']).to.equal('0.0.0.0');
  });

  it('lets a process drain for SHUTDOWN_GRACE_MS before Compose kills it', () => {
    for (const [name, service] of ours) {
      const graceMs = Number(service.environment?.['SHUTDOWN_GRACE_MS'] ?? 25_000);
      const period = /^(\d+)s$/.exec(service.stop_grace_period ?? '10s');
      // main.ts gives the rest of the shutdown 5 s past the grace before it exits on its own.
      expect(Number(period?.[1]), name).to.be.at.least(graceMs / 1000 + 5);
    }
  });

  it('has every long-running process serve its metrics on the compose network, exposed and never published (contract.md 8)', () => {
    const longRunning = ours.filter(([, service]) => service.command?.[0] !== 'migrate');
    expect(longRunning).to.have.length(ours.length - 1);
    for (const [name, service] of longRunning) {
      // The default 127.0.0.1 is the container's own loopback: a scraper in another container could not reach it.
      expect(service.environment?.['METRICS_HOST'], name).to.equal('0.0.0.0');
      const port = String(service.environment?.['METRICS_PORT'] ?? 9464);
      expect((service.expose ?? []).map(String), name).to.include(port);
      for (const published of service.ports ?? []) expect(published, name).not.to.match(new RegExp(`:${port}$`));
    }
  });

  it('checks each edge by its readiness route and publishes it on the loopback only', () => {
    for (const name of byRole('edge')) {
      const service = services[name]!;
      expect(service.healthcheck?.test.join(' '), name).to.contain('/health/ready');
      for (const port of service.ports ?? []) expect(port, name).to.match(/^127\.0\.0\.1:\d+:8080$/);
    }
  });
});
