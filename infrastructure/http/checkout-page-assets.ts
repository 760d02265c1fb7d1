/**
 * The checkout page's assets as the edge serves them (GET /checkout.js, /checkout.css). The compiled service reads
 * what `make build` bundled into dist/web/checkout; a service run from its TypeScript sources bundles them itself,
 * so tests always serve the page as the sources are.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CheckoutPageAssets {
  readonly script: string;
  readonly style: string;
}

const RUNNING_FROM_SOURCES = path.extname(__filename) === '.ts';

let loaded: CheckoutPageAssets | undefined;

export function checkoutPageAssets(): CheckoutPageAssets {
  if (loaded) return loaded;
  if (RUNNING_FROM_SOURCES) {
    // Build tooling (esbuild, a devDependency), loaded only when running from sources.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = (require('../../web/checkout/bundle') as typeof import('../../web/checkout/bundle')).bundleCheckoutPage();
  } else {
    const built = path.join(__dirname, '..', '..', 'web', 'checkout');
    loaded = { script: fs.readFileSync(path.join(built, 'checkout.js'), 'utf8'), style: fs.readFileSync(path.join(built, 'checkout.css'), 'utf8') };
  }
  return loaded;
}
