/**
 * Writes the OpenAPI document the service serves at /v1/openapi.json to a file (default
 * clients/typescript/openapi.json), for the typed client's generator and for linting without a running service.
 * The document is built from the modules' route definitions, so the modules are built once, in embedded mode on a
 * throw-away data directory: nothing listens, no worker starts, no database or NATS of the environment is touched.
 *
 *   npx tsx scripts/export-openapi.ts [output.json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../infrastructure/config/config';
import { openInfrastructure } from '../infrastructure/main/bootstrap';
import { MODULES } from '../infrastructure/main/modules';
import { assembleService, SERVICE_VERSION } from '../infrastructure/main/service';
import { buildOpenApiDocument } from '../edge/openapi';

async function exportOpenApi(output: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-export-'));
  try {
    const infrastructure = await openInfrastructure({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), startAdapters: false });
    try {
      const service = await assembleService(infrastructure.core, MODULES, { edge: false, worker: false }, null);
      const document = buildOpenApiDocument(service.routes, SERVICE_VERSION);
      await service.stop();
      fs.mkdirSync(path.dirname(output), { recursive: true });
      fs.writeFileSync(output, `${JSON.stringify(document, null, 2)}\n`);
    } finally {
      await infrastructure.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

exportOpenApi(path.resolve(process.argv[2] ?? 'clients/typescript/openapi.json')).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
