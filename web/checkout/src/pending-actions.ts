/**
 * What the buyer does when the payment waits on them outside the card form: the 3DS challenge (in sandbox the buyer
 * picks the issuer's answer), a Pix to pay (QR code, copy-and-paste code, time left) and a boleto (digitable line,
 * due date, printable boleto). The controller polls the public view meanwhile and moves on as soon as the service knows.
 */
import { copyText, h } from './dom';
import type { Messages } from './messages';
import type { NextAction } from './public-api';

type Pix = Extract<NextAction, { type: 'pix' }>;
type Boleto = Extract<NextAction, { type: 'boleto' }>;

export interface ActionContext {
  readonly idPrefix: string;
  readonly messages: Messages;
  readonly locale: string;
  readonly announce: (text: string) => void;
  /** Registers a timer the controller clears when the view changes. */
  readonly every: (ms: number, tick: () => void) => void;
}

export function threeDsChallenge(context: ActionContext, heading: HTMLElement, choose: (succeeded: boolean) => void): HTMLElement {
  const m = context.messages;
  const succeed = h('button', { type: 'button', class: 'pc-button' }, m.threeDsSucceed);
  const fail = h('button', { type: 'button', class: 'pc-button pc-secondary' }, m.threeDsFail);
  const pick = (succeeded: boolean) => {
    succeed.disabled = true;
    fail.disabled = true;
    context.announce(m.threeDsWorking);
    choose(succeeded);
  };
  succeed.addEventListener('click', () => pick(true));
  fail.addEventListener('click', () => pick(false));
  return h('section', { class: 'pc-three-ds', 'aria-labelledby': heading.id }, heading, h('p', {}, m.threeDsSandbox), h('div', { class: 'pc-actions' }, succeed, fail));
}

/**
 * What a sandbox issuer answers (spec: POST /v1/public/payments/{id}/three-ds): the network's ECI for the card's brand
 * (Mastercard 02 authenticated / 00 not; Visa, Elo, Amex 05 / 07), and CAVV/XID on success.
 */
export function sandboxThreeDsResult(succeeded: boolean, brand: string | null): Record<string, string> {
  const mastercard = brand === 'mastercard';
  if (!succeeded) return { outcome: 'failure', eci: mastercard ? '00' : '07', version: '2.2.0', returnCode: 'N', returnMessage: 'Not authenticated' };
  const random = (length: number) => Array.from(crypto.getRandomValues(new Uint8Array(length)), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62]).join('');
  return { outcome: 'success', eci: mastercard ? '02' : '05', cavv: random(28), xid: random(28), version: '2.2.0', returnCode: 'Y', returnMessage: 'Authenticated' };
}

export function pixAction(context: ActionContext, heading: HTMLElement, pix: Pix): HTMLElement {
  const m = context.messages;
  const codeId = `${context.idPrefix}-pix-code`;
  const code = h('textarea', { id: codeId, class: 'pc-code', readonly: true, rows: 4 }, pix.qrCode);
  const timer = h('p', { class: 'pc-timer' });
  const expiresAt = Date.parse(pix.expiresAt);
  const tick = () => {
    const left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    timer.textContent = left > 0 ? m.timeLeft(clock(left)) : m.pixExpired;
  };
  tick();
  context.every(1000, tick);
  return h('section', { class: 'pc-pix', 'aria-labelledby': heading.id },
    heading,
    h('p', {}, m.pixInstructions),
    h('img', { class: 'pc-qr', src: pix.qrCodeImage, alt: m.pixQrAlt, width: 220, height: 220 }),
    h('label', { for: codeId }, m.pixCode),
    code,
    copyButton(context, code, pix.qrCode),
    timer,
    h('p', { class: 'pc-waiting' }, m.waitingPayment),
  );
}

export function boletoAction(context: ActionContext, heading: HTMLElement, boleto: Boleto): HTMLElement {
  const m = context.messages;
  const lineId = `${context.idPrefix}-boleto-line`;
  const line = h('input', { id: lineId, class: 'pc-code', type: 'text', readonly: true, value: groupDigitableLine(boleto.digitableLine) });
  const due = new Intl.DateTimeFormat(context.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${boleto.dueDate.slice(0, 10)}T00:00:00Z`));
  return h('section', { class: 'pc-boleto', 'aria-labelledby': heading.id },
    heading,
    h('p', {}, m.boletoInstructions),
    h('label', { for: lineId }, m.boletoLine),
    line,
    copyButton(context, line, boleto.digitableLine),
    h('p', { class: 'pc-due' }, m.dueDate(due)),
    h('p', {}, h('a', { href: boleto.pdfUrl, target: '_blank', rel: 'noopener noreferrer', class: 'pc-link' }, m.boletoPdf)),
    h('p', { class: 'pc-waiting' }, m.waitingPayment),
  );
}

function copyButton(context: ActionContext, source: HTMLInputElement | HTMLTextAreaElement, text: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'pc-button pc-secondary' }, context.messages.copy);
  button.addEventListener('click', async () => {
    if (await copyText(text, source)) context.announce(context.messages.copied);
  });
  return button;
}

/** The digitable line as banks print it: 5.5 5.6 5.6 1 14. */
export function groupDigitableLine(line: string): string {
  const d = line.replace(/\D/g, '');
  if (d.length !== 47) return line;
  return `${d.slice(0, 5)}.${d.slice(5, 10)} ${d.slice(10, 15)}.${d.slice(15, 21)} ${d.slice(21, 26)}.${d.slice(26, 32)} ${d.slice(32, 33)} ${d.slice(33)}`;
}

function clock(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
