/**
 * The browser the checkout page tests drive: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) through
 * playwright-core, headless, with a fresh profile each time. Missing Chromium fails the suite with a sentence, never
 * skips it. One browser per test file; pages are reused across its cases.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { closeAfterRun } from './root-hooks';
import { eventually } from './eventually';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface CheckoutBrowser {
  readonly context: BrowserContext;
  /** Console lines of every page, CSP violations among them. */
  readonly consoleErrors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** The Content Security Policy violations the browser reported so far (the page must cause none). */
export function cspViolations(browser: CheckoutBrowser): string[] {
  return browser.consoleErrors.filter((line) => /Content Security Policy/i.test(line));
}

export async function launchCheckoutBrowser(options: { locale?: string } = {}): Promise<CheckoutBrowser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: the checkout page tests need it (apt-get install -y chromium; .ci/run installs it)`);
  }
  // launchPersistentContext is how playwright takes --user-data-dir: a fresh directory, removed on close.
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    locale: options.locale ?? 'pt-BR',
    timeout: 60_000,
  });
  const consoleErrors: string[] = [];
  const watch = (page: Page) => page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  context.pages().forEach(watch);
  context.on('page', watch);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  closeAfterRun(close, 'resources');
  return {
    context,
    consoleErrors,
    newPage: async () => context.pages().find((page) => page.url() === 'about:blank') ?? context.newPage(),
    close,
  };
}

/** The buyer types a card in the checkout's form (labels in pt-BR unless told) and pays. */
export async function payWithCard(page: Page, number: string, labels: { number: string; expiry: string; cvv: string; name: string; pay: RegExp } = PT_LABELS): Promise<void> {
  await page.getByLabel(labels.number).fill(number);
  await page.getByLabel(labels.expiry).fill('12/30');
  await page.getByLabel(labels.cvv).fill('123');
  await page.getByLabel(labels.name).fill('Ana Souza');
  await page.getByRole('button', { name: labels.pay }).click();
}

export const PT_LABELS = { number: 'Número do cartão', expiry: 'Validade', cvv: 'Código de segurança (CVV)', name: 'Nome impresso no cartão', pay: /^Pagar / };

/** Waits (generously: the machine is shared) for a heading with this name. */
export async function waitForHeading(page: Page, name: string | RegExp, timeoutMs = 45_000): Promise<void> {
  await page.getByRole('heading', { name }).waitFor({ state: 'visible', timeout: timeoutMs });
}

/** axe-core in the page (by the DevTools protocol, which the page's CSP does not govern): violations of serious or critical impact. */
export async function seriousAccessibilityViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; targets: string[] }>> {
  const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const results = await page.evaluate<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }>("axe.run(document, { resultTypes: ['violations'] })");
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.flatMap((node) => node.target) }));
}

export { eventually };
