/**
 * `make build`: bundles the checkout page (web/checkout) into dist/web/checkout/{checkout.js,checkout.css}, where the
 * compiled service reads them (infrastructure/http/checkout-page-assets.ts).
 *   npx tsx scripts/build-checkout-page.ts [outDir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleCheckoutPage } from '../web/checkout/bundle';

const outDir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist', 'web', 'checkout'));
const assets = bundleCheckoutPage();
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'checkout.js'), assets.script);
fs.writeFileSync(path.join(outDir, 'checkout.css'), assets.style);
console.log(`checkout page: ${outDir} (checkout.js ${assets.script.length} bytes, checkout.css ${assets.style.length} bytes)`);
