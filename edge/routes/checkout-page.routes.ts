/**
 * The buyer's pages (contract.md 9): GET /checkout/{paymentId} is the hosted checkout, whose client secret travels in
 * the URL fragment (never sent to a server, so never in a log); GET /checkout.js mounts the same checkout in a
 * merchant's page (`PaymentCheckout.mount(element, {paymentId, clientSecret})`) and GET /checkout.css styles it.
 * The page's HTML reflects nothing of the request: the script reads the payment id from the address itself.
 */
import { SANDBOX_DEVICE_FINGERPRINT_SCRIPT_PATH } from '../../application/payments/device-fingerprint';
import { defineRoute, type RouteDefinition } from '../http/route';

export interface CheckoutPageDeps {
  /** The bundled script and stylesheet (built from web/checkout). */
  readonly assets: () => { readonly script: string; readonly style: string };
  /** Origins the page calls besides its own: the card vault's (where the card number goes). */
  readonly vaultOrigins: () => readonly string[];
}

const PAGE = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Pagamento</title>
<link rel="stylesheet" href="/checkout.css">
</head>
<body class="pc-page">
<main><div id="payment-checkout"></div></main>
<script src="/checkout.js" data-hosted></script>
</body>
</html>
`;

/**
 * Exactly what the hosted page needs: its own script and stylesheet (no inline code or style), JSON calls to the
 * service and to the vault, QR code images as data: URIs; no form posts anywhere (the card leaves only by the
 * script's call to the vault), no plugins, no <base>, never framed.
 */
export function checkoutPageContentSecurityPolicy(vaultOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    'img-src data:',
    ["connect-src 'self'", ...vaultOrigins].join(' '),
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The assets change only with a deployment; a short cache keeps a new release visible within minutes. */
const ASSET_CACHE = 'public, max-age=300';

/**
 * The sandbox antifraud provider's device fingerprint script (application/payments/device-fingerprint.ts). A real
 * provider's script collects the device and reports it under the session id; this one only marks the document with
 * the session id it was loaded for, so a test (or a merchant trying the sandbox) can see it ran. It reads nothing
 * and sends nothing.
 */
const SANDBOX_DEVICE_FINGERPRINT_SCRIPT = `(function () {
  var script = document.currentScript;
  var id = script && new URL(script.src).searchParams.get('session_id');
  if (id && /^[A-Za-z0-9_-]{1,88}$/.test(id)) document.documentElement.setAttribute('data-sandbox-device-fingerprint', id);
})();
`;

export function checkoutPageRoutes(deps: CheckoutPageDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/checkout/:paymentId', operationId: 'getCheckoutPage', tag: 'Checkout', auth: 'none', successStatus: 200, responseMediaType: 'text/html',
      summary: 'Hosted checkout page (client secret in the URL fragment: /checkout/{paymentId}#{clientSecret})',
      description: 'The buyer pays here: card form (card posted to the vault only), 3DS step, Pix or boleto to pay, the end state. pt-BR by default, English for browsers that ask for it.',
      handler: async () => ({
        body: PAGE,
        contentType: 'text/html; charset=utf-8',
        headers: { 'Content-Security-Policy': checkoutPageContentSecurityPolicy(deps.vaultOrigins()) },
      }),
    }),
    defineRoute({
      method: 'get', path: '/checkout.js', operationId: 'getCheckoutScript', tag: 'Checkout', auth: 'none', successStatus: 200, responseMediaType: 'application/javascript',
      summary: 'checkout.js: mounts the checkout in a merchant page with PaymentCheckout.mount(element, {paymentId, clientSecret})',
      handler: async () => ({ body: deps.assets().script, contentType: 'application/javascript; charset=utf-8', headers: { 'Cache-Control': ASSET_CACHE } }),
    }),
    defineRoute({
      method: 'get', path: SANDBOX_DEVICE_FINGERPRINT_SCRIPT_PATH, operationId: 'getSandboxDeviceFingerprintScript', tag: 'Checkout', auth: 'none', successStatus: 200, responseMediaType: 'application/javascript',
      summary: 'The sandbox antifraud provider\'s device fingerprint script (deviceFingerprint.scriptUrl of a sandbox payment\'s public view)',
      description: 'Loaded by the checkout before the card form when the charging account runs the acquirer\'s antifraud analysis. It collects nothing: it marks the document with its session id.',
      handler: async () => ({ body: SANDBOX_DEVICE_FINGERPRINT_SCRIPT, contentType: 'application/javascript; charset=utf-8', headers: { 'Cache-Control': ASSET_CACHE } }),
    }),
    defineRoute({
      method: 'get', path: '/checkout.css', operationId: 'getCheckoutStylesheet', tag: 'Checkout', auth: 'none', successStatus: 200, responseMediaType: 'text/css',
      summary: 'The checkout\'s stylesheet (checkout.js adds it to the page it mounts in)',
      handler: async () => ({ body: deps.assets().style, contentType: 'text/css; charset=utf-8', headers: { 'Cache-Control': ASSET_CACHE } }),
    }),
  ];
}
