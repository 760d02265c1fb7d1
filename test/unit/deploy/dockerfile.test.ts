/**
 * The Dockerfile (contract.md 8): multi-stage on node:20-bookworm-slim, production dependencies only at run time,
 * non-root, one image for every role. No Docker engine is needed: the checks read the Dockerfile and the code, so
 * that everything the compiled service loads at run time is in the image.
 */
import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import packageJson from '../../../package.json';
import {
  REPOSITORY,
  SERVICE_SOURCE_FOLDERS,
  dockerfileStages,
  environmentNamesReadByCode,
  packageNameOf,
  readRepositoryFile,
  runtimeSpecifiers,
  sourceFiles,
} from '../../support/deployment-files';

/** Variables Node or its libraries read (not the service's own configuration). */
const RUNTIME_VARIABLES = new Set(['NODE_ENV', 'NODE_OPTIONS']);

describe('Dockerfile', () => {
  const stages = dockerfileStages(readRepositoryFile('Dockerfile'));
  const runtime = stages[stages.length - 1]!;
  const build = stages.find((stage) => stage.name === 'build')!;
  const copiedIntoBuild = build.instructions
    .filter((instruction) => /^COPY\s/i.test(instruction) && !/--from/.test(instruction))
    .flatMap((instruction) => instruction.split(/\s+/).slice(1, -1));
  const serviceFiles = sourceFiles(SERVICE_SOURCE_FOLDERS.map((folder) => path.join(REPOSITORY, folder)));

  it('builds in one stage and runs from another, both on node:20-bookworm-slim', () => {
    expect(stages.length).to.be.at.least(2);
    for (const stage of stages) expect(stage.from).to.equal('node:20-bookworm-slim');
    expect(build.instructions).to.include('RUN npm ci --no-audit --no-fund --loglevel=error');
    expect(build.instructions.some((instruction) => /tsc -p tsconfig\.json/.test(instruction))).to.equal(true);
  });

  it('runs with production dependencies only, the compiled code, as the unprivileged node user', () => {
    expect(runtime.instructions.some((instruction) => /^RUN npm ci --omit=dev\b/.test(instruction))).to.equal(true);
    expect(runtime.instructions).to.include('COPY --from=build /app/dist ./dist');
    const users = runtime.instructions.filter((instruction) => /^USER\s/i.test(instruction));
    expect(users).to.deep.equal(['USER node']);
    // Nothing may run as root after the switch.
    const afterUser = runtime.instructions.slice(runtime.instructions.indexOf('USER node') + 1);
    expect(afterUser.filter((instruction) => /^(RUN|USER)\s/i.test(instruction))).to.deep.equal([]);
  });

  it('starts main.js, so the role is the container command (one image for every role)', () => {
    expect(runtime.instructions).to.include('ENTRYPOINT ["node", "dist/infrastructure/main/main.js"]');
  });

  it('runs Node with the 64 MB young generation and listens beyond the loopback', () => {
    const environment = runtime.instructions.filter((instruction) => /^ENV\s/i.test(instruction)).join(' ');
    expect(environment).to.match(/NODE_OPTIONS=--max-semi-space-size=64\b/);
    expect(environment).to.match(/\bHOST=0\.0\.0\.0\b/);
  });

  it('sets only environment variables the code or Node reads', () => {
    const read = environmentNamesReadByCode();
    const names = runtime.instructions
      .filter((instruction) => /^ENV\s/i.test(instruction))
      .flatMap((instruction) => [...instruction.matchAll(/\b([A-Z][A-Z0-9_]*)=/g)].map((match) => match[1]!));
    expect(names).to.not.be.empty;
    for (const name of names) expect(read.has(name) || RUNTIME_VARIABLES.has(name), name).to.equal(true);
  });

  it('copies every folder the service code imports from, and package.json (the version it reports)', () => {
    expect(copiedIntoBuild).to.include('package.json');
    for (const folder of SERVICE_SOURCE_FOLDERS) expect(copiedIntoBuild, folder).to.include(folder);
    const outside: string[] = [];
    for (const file of serviceFiles) {
      for (const specifier of runtimeSpecifiers(fs.readFileSync(file, 'utf8')).filter((s) => s.startsWith('.'))) {
        const target = path.relative(REPOSITORY, path.resolve(path.dirname(file), specifier));
        const top = target.split(path.sep)[0]!;
        if (target !== 'package.json' && !copiedIntoBuild.includes(top)) outside.push(`${path.relative(REPOSITORY, file)} -> ${specifier}`);
      }
    }
    expect(outside).to.deep.equal([]);
  });

  it('finds every package the service loads at run time among the production dependencies', () => {
    const production = new Set(Object.keys(packageJson.dependencies));
    const builtins = new Set(builtinModules);
    const missing = new Set<string>();
    for (const file of serviceFiles) {
      for (const specifier of runtimeSpecifiers(fs.readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(packageNameOf(specifier))) continue;
        if (!production.has(packageNameOf(specifier))) missing.add(`${packageNameOf(specifier)} (${path.relative(REPOSITORY, file)})`);
      }
    }
    expect([...missing]).to.deep.equal([]);
  });

  it('keeps out of the build context what must not reach an image, and nothing the build copies', () => {
    const ignored = readRepositoryFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    expect(ignored).to.include.members(['.git', 'node_modules', 'dist', '.data', '.env']);
    for (const copied of [...copiedIntoBuild, 'package-lock.json', 'tsconfig.json']) expect(ignored, copied).to.not.include(copied);
  });
});
