/**
 * deploy/kubernetes/ (contract.md 8): a kustomize base whose every manifest is valid against the Kubernetes API
 * schemas (kubernetes-models' validators, generated from the Kubernetes OpenAPI specification: offline), with a
 * Deployment per role (probes, resources, a PodDisruptionBudget), an HPA for the edges, the migrate Job, Secrets
 * referenced and never contained, and roles, variables and addresses the code agrees with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { ADAPTER_STARTERS } from '../../../infrastructure/main/connector-process-entry';
import { isAdapterRole, isServiceRole } from '../../../infrastructure/main/process-roles';
import {
  KUBERNETES_FOLDER,
  containersOf,
  environmentNamesReadByCode,
  kubernetesDocuments,
  kubernetesManifestFiles,
  parseYamlDocuments,
  type ContainerSpec,
  type KubernetesObject,
} from '../../support/deployment-files';

/** The API types the base uses, each with the validator generated from the Kubernetes OpenAPI specification. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
};

/** The validator's complaint about a manifest, or null when it is valid. */
function schemaErrors(object: KubernetesObject): string | null {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) return `no schema for ${object.apiVersion} ${object.kind}`;
  try {
    new Model(object as never).validate();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

type PodTemplate = { metadata: { labels: Record<string, string> }; spec: { terminationGracePeriodSeconds?: number; securityContext?: Record<string, unknown> } };
type Probe = { httpGet?: { path: string; port: string | number }; grpc?: { port: number } };

const documents = kubernetesDocuments();
const objects = documents.map((document) => document.object);
const ofKind = (kind: string) => objects.filter((object) => object.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find((object) => object.metadata.name === name);
const templateOf = (object: KubernetesObject) => (object['spec'] as { template: PodTemplate }).template;
const roleOf = (container: ContainerSpec) => (container.args ?? []).join(' ');
const deploymentRunning = (role: string) => ofKind('Deployment').find((deployment) => containersOf(deployment).some((c) => roleOf(c) === role));
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

/** What a container is told: its own values, a ConfigMap's keys it loads, and Secret references. */
function environmentOf(container: ContainerSpec): Map<string, { value?: string; secret?: string }> {
  const environment = new Map<string, { value?: string; secret?: string }>();
  for (const source of container.envFrom ?? []) {
    const configMap = source.configMapRef ? named('ConfigMap', source.configMapRef.name) : undefined;
    for (const [name, value] of Object.entries((configMap?.['data'] as Record<string, string>) ?? {})) environment.set(name, { value });
  }
  for (const variable of container.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef?.name;
    environment.set(variable.name, secret ? { secret } : { ...(variable.value !== undefined ? { value: variable.value } : {}) });
  }
  return environment;
}

describe('deploy/kubernetes', () => {
  it('every manifest parses and is valid against the Kubernetes API schema of its kind', () => {
    expect(documents.length).to.be.greaterThan(0);
    const problems = documents.map(({ file, object }) => ({ file, kind: object?.kind, error: schemaErrors(object) })).filter((result) => result.error);
    expect(problems).to.deep.equal([]);
  });

  it('the schema check refuses a field of the wrong type (the validation is live)', () => {
    const edge = structuredClone(deploymentRunning('edge')!) as unknown as { spec: { replicas: unknown } };
    edge.spec.replicas = 'two';
    expect(schemaErrors(edge as unknown as KubernetesObject)).to.match(/replicas must be integer/);
  });

  it('kustomization.yaml lists exactly the manifests of the folder', () => {
    const [kustomization] = parseYamlDocuments(fs.readFileSync(path.join(KUBERNETES_FOLDER, 'kustomization.yaml'), 'utf8'), 'kustomization.yaml') as Array<
      Record<string, unknown>
    >;
    expect(kustomization?.['apiVersion']).to.equal('kustomize.config.k8s.io/v1beta1');
    expect(kustomization?.['kind']).to.equal('Kustomization');
    expect([...(kustomization?.['resources'] as string[])].sort()).to.deep.equal(kubernetesManifestFiles());
  });

  it('runs a Deployment for the edge, the worker and each sandbox adapter, and the migrations as a Job', () => {
    for (const role of ['edge', 'worker', 'connector sandbox', 'antifraud sandbox-antifraud']) expect(deploymentRunning(role), role).to.exist;
    expect(ofKind('Job').flatMap((job) => containersOf(job).map(roleOf))).to.deep.equal(['migrate']);
  });

  it('starts only roles main.ts accepts and adapters it ships', () => {
    for (const object of objects) {
      for (const container of containersOf(object)) {
        const [role, slug] = container.args ?? [];
        expect(container.command, `${object.metadata.name}: the image's entrypoint runs main.js`).to.equal(undefined);
        if (isAdapterRole(role!)) expect(ADAPTER_STARTERS, object.metadata.name).to.have.property(slug!);
        else expect(isServiceRole(role!), `${object.metadata.name}: role ${role}`).to.equal(true);
      }
    }
  });

  it('sets only environment variables the code reads', () => {
    const read = environmentNamesReadByCode();
    for (const object of objects) {
      for (const container of containersOf(object)) {
        for (const name of environmentOf(container).keys()) expect(read.has(name), `${object.metadata.name}: ${name} is read by no code`).to.equal(true);
      }
    }
  });

  it('gives every Deployment liveness and readiness probes (the edge: /health/live and /health/ready) and resources', () => {
    for (const deployment of ofKind('Deployment')) {
      for (const container of containersOf(deployment)) {
        const liveness = container['livenessProbe'] as Probe | undefined;
        const readiness = container['readinessProbe'] as Probe | undefined;
        expect(liveness, `${deployment.metadata.name} liveness`).to.exist;
        expect(readiness, `${deployment.metadata.name} readiness`).to.exist;
        const resources = container['resources'] as { requests?: Record<string, string>; limits?: Record<string, string> } | undefined;
        expect(resources?.requests, deployment.metadata.name).to.have.keys('cpu', 'memory');
        expect(resources?.limits, deployment.metadata.name).to.have.property('memory');
        if (roleOf(container) === 'edge') {
          expect(liveness?.httpGet?.path).to.equal('/health/live');
          expect(readiness?.httpGet?.path).to.equal('/health/ready');
        }
      }
    }
  });

  it('probes a worker and an adapter on the gRPC port it serves', () => {
    for (const role of ['worker', 'connector sandbox', 'antifraud sandbox-antifraud']) {
      const container = containersOf(deploymentRunning(role)!)[0]!;
      const environment = environmentOf(container);
      const port = Number(environment.get(role === 'worker' ? 'CORE_NOTIFICATIONS_PORT' : 'PORT')?.value);
      for (const probe of ['livenessProbe', 'readinessProbe']) expect((container[probe] as Probe).grpc?.port, `${role} ${probe}`).to.equal(port);
    }
  });

  it('covers every Deployment with a PodDisruptionBudget, and the edges with an HPA', () => {
    for (const deployment of ofKind('Deployment')) {
      const labels = templateOf(deployment).metadata.labels;
      const budgets = ofKind('PodDisruptionBudget').filter((pdb) =>
        matches((pdb['spec'] as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, labels),
      );
      expect(budgets, deployment.metadata.name).to.have.length(1);
    }
    const edge = deploymentRunning('edge')!;
    const hpa = ofKind('HorizontalPodAutoscaler').map((object) => object['spec'] as { scaleTargetRef: { kind: string; name: string }; minReplicas: number });
    expect(hpa.map((spec) => spec.scaleTargetRef)).to.deep.equal([{ apiVersion: 'apps/v1', kind: 'Deployment', name: edge.metadata.name }]);
    expect(hpa[0]!.minReplicas).to.be.at.least(2);
    // The HPA owns the count; a fixed one would be set back on every apply.
    expect(edge['spec']).not.to.have.property('replicas');
  });

  it('references the secrets from a Secret it does not contain, and keeps them out of the ConfigMap', () => {
    expect(ofKind('Secret')).to.deep.equal([]);
    for (const role of ['edge', 'worker']) {
      const environment = environmentOf(containersOf(deploymentRunning(role)!)[0]!);
      for (const name of ['DATABASE_URL', 'CREDENTIALS_KEY', 'SESSION_SECRET']) expect(environment.get(name)?.secret, `${role} ${name}`).to.be.a('string');
    }
    for (const configMap of ofKind('ConfigMap')) {
      expect(configMap['data']).to.not.have.any.keys('DATABASE_URL', 'CREDENTIALS_KEY', 'SESSION_SECRET', 'SMTP_URL');
    }
  });

  it('tells the edges and workers NATS_URL and CONNECTOR_ADAPTERS, naming Services and ports of adapters it runs', () => {
    for (const role of ['edge', 'worker']) {
      const environment = environmentOf(containersOf(deploymentRunning(role)!)[0]!);
      expect(environment.get('NATS_URL')?.value, role).to.match(/^nats:\/\//);
      const adapters = environment.get('CONNECTOR_ADAPTERS')!.value!.split(',');
      expect(adapters, role).to.have.length(2);
      for (const entry of adapters) {
        const [slug, address] = entry.split('=');
        const [host, port] = address!.split(':');
        const service = named('Service', host!);
        expect(service, entry).to.exist;
        const selector = (service!['spec'] as { selector: Record<string, string> }).selector;
        const target = ofKind('Deployment').find((deployment) => matches(selector, templateOf(deployment).metadata.labels))!;
        expect(containersOf(target)[0]!.args?.[1], entry).to.equal(slug);
        expect(environmentOf(containersOf(target)[0]!).get('PORT')?.value, entry).to.equal(port);
      }
    }
  });

  it('points the sandbox acquirer at the worker Service serving CoreNotifications', () => {
    const acquirer = environmentOf(containersOf(deploymentRunning('connector sandbox')!)[0]!);
    const [host, port] = acquirer.get('CORE_NOTIFICATIONS_ADDRESS')!.value!.split(':');
    const service = named('Service', host!)!;
    const worker = deploymentRunning('worker')!;
    expect(matches((service['spec'] as { selector: Record<string, string> }).selector, templateOf(worker).metadata.labels)).to.equal(true);
    expect((service['spec'] as { ports: Array<{ port: number }> }).ports.map((p) => p.port)).to.include(Number(port));
    expect(environmentOf(containersOf(worker)[0]!).get('CORE_NOTIFICATIONS_HOST')?.value).to.equal('0.0.0.0');
  });

  it('routes every Service to pods of a Deployment through a port they name', () => {
    for (const service of ofKind('Service')) {
      const spec = service['spec'] as { selector: Record<string, string>; ports: Array<{ targetPort: string | number }> };
      const targets = ofKind('Deployment').filter((deployment) => matches(spec.selector, templateOf(deployment).metadata.labels));
      expect(targets, service.metadata.name).to.have.length(1);
      const ports = containersOf(targets[0]!).flatMap((container) => (container['ports'] as Array<{ name: string }> | undefined) ?? []);
      for (const port of spec.ports) expect(ports.map((p) => p.name), service.metadata.name).to.include(port.targetPort);
    }
  });

  it('lets a process drain for SHUTDOWN_GRACE_MS (and any preStop pause) before Kubernetes kills it', () => {
    for (const deployment of ofKind('Deployment')) {
      const template = templateOf(deployment);
      const container = containersOf(deployment)[0]!;
      const graceMs = Number(environmentOf(container).get('SHUTDOWN_GRACE_MS')?.value ?? 25_000);
      const preStop = (container['lifecycle'] as { preStop?: { exec?: { command: string[] } } } | undefined)?.preStop?.exec?.command ?? [];
      const pauseSeconds = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
      // main.ts gives the rest of the shutdown 5 s past the grace before it exits on its own.
      expect(template.spec.terminationGracePeriodSeconds ?? 30, deployment.metadata.name).to.be.at.least(pauseSeconds + graceMs / 1000 + 5);
    }
  });

  it('labels the ConfigMap and the migrate Job as the release procedure selects them (docs/operations.md)', () => {
    const first = objects.filter((object) => ['config', 'migrate'].includes((object.metadata as { labels?: Record<string, string> }).labels?.['app.kubernetes.io/component'] ?? ''));
    expect(first.map((object) => object.kind).sort()).to.deep.equal(['ConfigMap', 'Job']);
  });

  it('has every long-running process serve its metrics to the pod network, declared and annotated for Prometheus (contract.md 8)', () => {
    for (const deployment of ofKind('Deployment')) {
      const name = deployment.metadata.name;
      const container = containersOf(deployment)[0]!;
      const environment = environmentOf(container);
      // The default 127.0.0.1 is the container's own loopback: no scraper could reach it.
      expect(environment.get('METRICS_HOST')?.value, `${name} METRICS_HOST`).to.equal('0.0.0.0');
      const port = Number(environment.get('METRICS_PORT')?.value ?? 9464);
      const declared = (container['ports'] as Array<{ name: string; containerPort: number }> | undefined) ?? [];
      expect(declared.find((p) => p.name === 'metrics')?.containerPort, `${name} metrics port`).to.equal(port);
      const annotations = (templateOf(deployment).metadata as { annotations?: Record<string, string> }).annotations ?? {};
      expect(annotations, name).to.deep.include({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' });
    }
  });

  it('keeps the metrics port out of every Service (scraped per pod, never reachable through the API address)', () => {
    for (const service of ofKind('Service')) {
      const ports = (service['spec'] as { ports: Array<{ targetPort: string | number; port: number }> }).ports;
      for (const port of ports) expect([port.targetPort, port.port], service.metadata.name).to.not.include.members(['metrics', 9464]);
    }
  });

  it('runs every pod as a non-root user', () => {
    for (const object of [...ofKind('Deployment'), ...ofKind('Job')]) {
      const security = templateOf(object).spec.securityContext;
      expect(security?.['runAsNonRoot'], object.metadata.name).to.equal(true);
      expect(security?.['runAsUser'], object.metadata.name).to.be.a('number').and.not.equal(0);
    }
  });
});
