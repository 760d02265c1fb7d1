/**
 * The dependency rule (docs/engineering.md, Layout), checked by test/unit/architecture/dependency-rule.test.ts in
 * every `make test`: domain imports only domain; application only domain; edge only application and domain;
 * infrastructure may import all. Paths are relative to the repository. Type-only imports count: a type from the
 * wrong layer couples the code as much as a value does.
 */

/** Pure node modules the domain may use: hashing for tokens and fingerprints, where a port would be silly. */
const DOMAIN_NODE_MODULES = '^(node:)?crypto$';
/** The one domain module that may use ipaddr.js (a pure, I/O-free parser), so no other code compares addresses as text. */
const IP_ADDRESS_MODULE = '^domain/shared/ip-address\\.ts$';
const IPADDR_LIBRARY = '^node_modules/ipaddr\\.js/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-only-domain',
      comment: 'The domain is pure: no framework, no I/O, nothing from the layers around it (docs/engineering.md).',
      severity: 'error',
      from: { path: '^domain/' },
      to: { pathNot: ['^domain/', DOMAIN_NODE_MODULES, IPADDR_LIBRARY] },
    },
    {
      name: 'ipaddr-only-in-ip-address-module',
      comment: 'IP addresses are parsed in domain/shared/ip-address.ts alone (a decision already made); everything else goes through it.',
      severity: 'error',
      from: { pathNot: IP_ADDRESS_MODULE },
      to: { path: IPADDR_LIBRARY },
    },
    {
      name: 'application-imports-only-domain',
      comment: 'Use cases are plain classes over ports: anything with I/O or a library behind it is a port in domain/ports.',
      severity: 'error',
      from: { path: '^application/' },
      to: { pathNot: ['^application/', '^domain/'] },
    },
    {
      name: 'edge-imports-only-application-and-domain',
      comment:
        'The edge reads and writes through use cases and ports (e.g. application/webhook/webhook-read-model.ts), never ' +
        'infrastructure types. It is the HTTP adapter, so the production packages (dependencies) and node modules stay allowed.',
      severity: 'error',
      from: { path: '^edge/' },
      to: { dependencyTypesNot: ['npm', 'core'], pathNot: ['^edge/', '^application/', '^domain/'] },
    },
    {
      name: 'no-circular-domain',
      comment: 'Domain modules form a tree: a cycle means two concepts that cannot be understood apart.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^domain/', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
