/**
 * Build tooling, not service code (Node, outside the browser sources in src/). Builds the checkout's browser assets from web/checkout: its TypeScript bundled by esbuild (a devDependency) into one classic script
 * (checkout.js: an IIFE, so a merchant's page gains only `PaymentCheckout`), minified, and its stylesheet as written.
 * `make build` writes them to dist/web/checkout (scripts/build-checkout-page.ts); a service run from sources (tests,
 * `npx tsx`) builds them in memory at start-up. The compiled service never loads this file.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

export function bundleCheckoutPage(sourceDirectory = __dirname): { script: string; style: string } {
  const result = esbuild.buildSync({
    entryPoints: [path.join(sourceDirectory, 'src', 'main.ts')],
    bundle: true,
    format: 'iife',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return {
    script: result.outputFiles[0]!.text,
    style: fs.readFileSync(path.join(sourceDirectory, 'checkout.css'), 'utf8'),
  };
}
