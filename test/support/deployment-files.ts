/**
 * Reads the deployment files (Dockerfile, compose.yaml, deploy/kubernetes/) and what the code says about the
 * processes they start, for the offline checks in test/unit/deploy/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const REPOSITORY = path.resolve(__dirname, '..', '..');
export const KUBERNETES_FOLDER = path.join(REPOSITORY, 'deploy', 'kubernetes');

/** The folders the service's code lives in: what the image compiles (everything else is tests, tools and docs). */
export const SERVICE_SOURCE_FOLDERS = ['domain', 'application', 'infrastructure', 'edge', 'webhook-verifier'] as const;

export function readRepositoryFile(relative: string): string {
  return fs.readFileSync(path.join(REPOSITORY, relative), 'utf8');
}

/** YAML as Compose reads it: anchors and `<<` merge keys resolved. */
export function parseComposeText(text: string): Record<string, unknown> {
  return parse(text, { merge: true }) as Record<string, unknown>;
}

export interface KubernetesDocument {
  readonly file: string;
  readonly object: KubernetesObject;
}

export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly [field: string]: unknown;
}

/** Every document of a multi-document YAML text; a syntax error throws with the file named. */
export function parseYamlDocuments(text: string, file: string): unknown[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
    const value: unknown = document.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

/** The YAML files of deploy/kubernetes/ other than kustomization.yaml. */
export function kubernetesManifestFiles(): string[] {
  return fs
    .readdirSync(KUBERNETES_FOLDER)
    .filter((name) => /\.ya?ml$/.test(name) && name !== 'kustomization.yaml')
    .sort();
}

export function kubernetesDocuments(): KubernetesDocument[] {
  return kubernetesManifestFiles().flatMap((file) =>
    parseYamlDocuments(fs.readFileSync(path.join(KUBERNETES_FOLDER, file), 'utf8'), file).map((object) => ({ file, object: object as KubernetesObject })),
  );
}

export interface ContainerSpec {
  readonly name: string;
  readonly args?: string[];
  readonly command?: string[];
  readonly env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  readonly envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readonly [field: string]: unknown;
}

/** The pod template's containers of a Deployment or Job; none for other kinds. */
export function containersOf(object: KubernetesObject): ContainerSpec[] {
  const spec = object['spec'] as { template?: { spec?: { containers?: ContainerSpec[] } } } | undefined;
  return spec?.template?.spec?.containers ?? [];
}

/**
 * The environment variable names the service's code reads: `env.NAME`, `env['NAME']` and the config parsers'
 * `integer(env, 'NAME', ...)`/`optional(env, 'NAME')`, wherever they appear (process.env included).
 */
export function environmentNamesReadByCode(): Set<string> {
  const names = new Set<string>();
  const patterns = [/\benv\.([A-Z][A-Z0-9_]*)\b/g, /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g, /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g];
  for (const file of sourceFiles(SERVICE_SOURCE_FOLDERS.map((folder) => path.join(REPOSITORY, folder)))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) names.add(match[1]!);
  }
  return names;
}

/** TypeScript files under the folders, generated code included (it is compiled into the image too). */
export function sourceFiles(folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
    }
  };
  for (const folder of folders) if (fs.existsSync(folder)) walk(folder);
  return files;
}

/**
 * What a compiled file loads at run time: value imports and re-exports, `import()`, `require()` and
 * `require.resolve()`. Type-only imports are left out: tsc erases them.
 */
export function runtimeSpecifiers(source: string): string[] {
  const patterns = [
    /^\s*import\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /^\s*export\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Dockerfile instructions, continuation lines joined and comments dropped, grouped by build stage. */
export function dockerfileStages(text: string): Array<{ from: string; name: string | null; instructions: string[] }> {
  const lines = text.split('\n').filter((line) => !/^\s*#/.test(line));
  const instructions = lines.join('\n').replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter(Boolean);
  const stages: Array<{ from: string; name: string | null; instructions: string[] }> = [];
  for (const instruction of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(instruction);
    if (from) stages.push({ from: from[1]!, name: from[2] ?? null, instructions: [] });
    else if (stages.length > 0) stages[stages.length - 1]!.instructions.push(instruction);
  }
  return stages;
}
