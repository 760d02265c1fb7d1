/**
 * The API reference page: swagger-ui served from the installed package (no CDN), reading the generated
 * OpenAPI document at /v1/openapi.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defineRoute, type RouteDefinition } from '../http/route';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Payment Orchestration API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', deepLinking: true });`;

export function docsRoutes(openApi: () => Record<string, unknown>): RouteDefinition[] {
  const assetDirectory = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, string>();
  const asset = (name: string) => {
    if (!cache.has(name)) cache.set(name, fs.readFileSync(path.join(assetDirectory, name), 'utf8'));
    return cache.get(name)!;
  };
  return [
    defineRoute({
      method: 'get', path: '/v1/openapi.json', operationId: 'getOpenApi', tag: 'Reference', auth: 'none', successStatus: 200,
      summary: 'The OpenAPI 3.1 document of this API',
      response: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object', properties: { title: { type: 'string' }, version: { type: 'string' } } }, paths: { type: 'object' } } },
      handler: async () => ({ body: openApi() }),
    }),
    defineRoute({
      method: 'get', path: '/docs', operationId: 'getDocs', tag: 'Reference', auth: 'none', successStatus: 200,
      summary: 'API reference page (swagger-ui)', responseMediaType: 'text/html',
      handler: async () => ({ body: PAGE, contentType: 'text/html; charset=utf-8' }),
    }),
    defineRoute({
      method: 'get', path: '/docs/assets/:name', operationId: 'getDocsAsset', tag: 'Reference', auth: 'none', successStatus: 200,
      summary: 'API reference page assets (swagger-ui stylesheet and scripts)', responseMediaType: '*/*',
      handler: async (request) => {
        const name = request.params.name;
        if (name === 'init.js') return { body: INIT, contentType: 'application/javascript; charset=utf-8' };
        const type = ASSETS[name];
        if (!type) return { status: 404, body: { error: { code: 'not_found', message: 'No such asset', param: null, details: [], requestId: request.requestId } } };
        return { body: asset(name), contentType: type, headers: { 'Cache-Control': 'public, max-age=3600' } };
      },
    }),
  ];
}
