/**
 * checkout.js: `PaymentCheckout.mount(element, {paymentId, clientSecret})` mounts the checkout in any page (its
 * stylesheet is added from the service's origin); the hosted page (/checkout/{paymentId}#<clientSecret>) is the same
 * script mounting itself, reading the secret from the URL fragment, which a browser never sends to a server.
 */
import { Checkout } from './checkout';
import { chooseLocale, type Locale } from './messages';

interface MountOptions {
  readonly paymentId: string;
  readonly clientSecret: string;
  /** 'pt-BR' or 'en'; by default the browser's language decides (pt-BR unless it asks for English). */
  readonly locale?: Locale;
}

interface MountedCheckout {
  unmount(): void;
}

const script = document.currentScript as HTMLScriptElement | null;
/** Where the script came from is where the service is: a merchant's page includes it from the service's origin. */
const serviceOrigin = new URL(script?.src ?? window.location.href, window.location.href).origin;

function mount(element: HTMLElement, options: MountOptions, headingLevel: 1 | 2 = 2): MountedCheckout {
  if (!(element instanceof HTMLElement)) throw new TypeError('PaymentCheckout.mount needs an element');
  if (!options || typeof options.paymentId !== 'string' || typeof options.clientSecret !== 'string' || !options.clientSecret) {
    throw new TypeError('PaymentCheckout.mount needs {paymentId, clientSecret}');
  }
  if (headingLevel === 2) addStylesheet();
  const locale = chooseLocale(navigator.languages ?? [navigator.language], options.locale);
  const checkout = new Checkout(element, { paymentId: options.paymentId, clientSecret: options.clientSecret, baseUrl: serviceOrigin, locale, headingLevel });
  void checkout.start();
  return { unmount: () => checkout.unmount() };
}

function addStylesheet(): void {
  const href = `${serviceOrigin}/checkout.css`;
  if (document.querySelector(`link[rel="stylesheet"][href="${href}"]`)) return;
  document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href }));
}

function mountHostedPage(root: HTMLElement): void {
  const paymentId = decodeURIComponent(window.location.pathname.split('/').filter(Boolean).pop() ?? '');
  const clientSecret = decodeURIComponent(window.location.hash.replace(/^#/, ''));
  const locale = chooseLocale(navigator.languages ?? [navigator.language]);
  document.documentElement.lang = locale;
  if (locale === 'en') document.title = 'Payment';
  mount(root, { paymentId, clientSecret: clientSecret || 'missing', locale }, 1);
}

(window as unknown as { PaymentCheckout: unknown }).PaymentCheckout = Object.freeze({ mount: (element: HTMLElement, options: MountOptions) => mount(element, options) });

const hostedRoot = script?.hasAttribute('data-hosted') ? document.getElementById('payment-checkout') : null;
if (hostedRoot) mountHostedPage(hostedRoot);
