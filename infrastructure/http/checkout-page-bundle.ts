/**
 * Builds the checkout's browser assets from web/checkout: its TypeScript bundled by esbuild into one classic script
 * (checkout.js: an IIFE, so a merchant's page gains only `PaymentCheckout`), minified, and its stylesheet as written.
 * `make build` writes them to dist/web/checkout (scripts/build-checkout-page.ts); a service run from sources (tests,
 * `npx tsx`) builds them in memory at start-up. esbuild is a build tool: only these two paths load it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CheckoutPageAssets } from './checkout-page-assets';

/** web/checkout from this file's place in the sources (infrastructure/http). */
export const CHECKOUT_SOURCE_DIRECTORY = path.join(__dirname, '..', '..', 'web', 'checkout');

export function bundleCheckoutPage(sourceDirectory = CHECKOUT_SOURCE_DIRECTORY): CheckoutPageAssets {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
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
