/**
 * One mounted checkout: reads the public view and shows what the payment needs now (the card form, a decline and the
 * attempts left, the 3DS step, a Pix or a boleto to pay, or the end), polling the view while the payment waits on
 * something outside the page. Status changes are announced in a polite live region, refusals in an alert region,
 * and focus moves to each new step's heading.
 */
import { cardForm } from './card-form';
import { BRAND_LABELS, type CardBrand, type CardField, type CheckedCard } from './card-checks';
import { loadDeviceFingerprint } from './device-fingerprint';
import { h } from './dom';
import { MESSAGES, type Locale, type Messages } from './messages';
import { boletoAction, pixAction, sandboxThreeDsResult, threeDsChallenge, type ActionContext } from './pending-actions';
import { ApiRefusal, PublicApi, type PublicView } from './public-api';

export interface CheckoutOptions {
  readonly paymentId: string;
  readonly clientSecret: string;
  readonly baseUrl: string;
  readonly locale: Locale;
  /** The hosted page is the document (h1); mounted in a merchant's page the checkout is a section of it (h2). */
  readonly headingLevel: 1 | 2;
}

/** How often the view is read while the payment waits on a bank or the service: quick enough for "paid" to show at once. */
const POLL_MS = 2000;
const SUCCESS = new Set(['authorized', 'captured', 'partially_captured']);

let mounted = 0;

export class Checkout {
  private readonly api: PublicApi;
  private readonly m: Messages;
  private readonly idPrefix = `pc${++mounted}`;
  private readonly header = h('div', { class: 'pc-header' });
  private readonly body = h('div', { class: 'pc-body' });
  private readonly status = h('div', { class: 'pc-visually-hidden', role: 'status', 'aria-live': 'polite' });
  private readonly alert = h('div', { class: 'pc-alert', role: 'alert', 'aria-live': 'assertive' });
  private timers: number[] = [];
  private stopped = false;
  private shown: string | null = null;

  constructor(private readonly root: HTMLElement, private readonly options: CheckoutOptions) {
    this.api = new PublicApi(options.baseUrl, options.paymentId, options.clientSecret);
    this.m = MESSAGES[options.locale];
    root.classList.add('pc-checkout');
    root.setAttribute('lang', options.locale);
    root.replaceChildren(this.header, this.alert, this.body, this.status);
  }

  async start(): Promise<void> {
    this.body.replaceChildren(h('p', { class: 'pc-loading' }, this.m.loading));
    await this.refresh();
  }

  unmount(): void {
    this.stopped = true;
    this.clearTimers();
    this.root.replaceChildren();
  }

  private async refresh(): Promise<void> {
    try {
      this.render(await this.api.view());
    } catch (error) {
      this.refused(error);
    }
  }

  private render(view: PublicView): void {
    if (this.stopped) return;
    this.clearTimers();
    this.renderHeader(view);
    const action = view.nextAction;
    if (view.status === 'requires_payment_method') return this.showCardForm(view);
    if (view.status === 'requires_action' && action?.type === 'three_ds') return this.showThreeDs(view.card?.brand ?? null);
    if (view.status === 'requires_action' && action?.type === 'pix') return this.showStep('pix', this.m.pixTitle, (heading) => pixAction(this.actionContext(), heading, action), true);
    if (view.status === 'requires_action' && action?.type === 'boleto') return this.showStep('boleto', this.m.boletoTitle, (heading) => boletoAction(this.actionContext(), heading, action), true);
    if (view.status === 'requires_action' || view.status === 'processing') return this.showStep('processing', this.m.processing, (heading) => h('section', {}, heading), true);
    this.showEnd(view);
  }

  private renderHeader(view: PublicView): void {
    const amount = new Intl.NumberFormat(this.options.locale, { style: 'currency', currency: view.currency }).format(view.amount / 100);
    this.header.replaceChildren(
      h('p', { class: 'pc-merchant' }, this.m.payTo(view.merchant.name ?? '')),
      h('p', { class: 'pc-amount' }, h('span', { class: 'pc-visually-hidden' }, `${this.m.amount}: `), amount),
      ...(view.description ? [h('p', { class: 'pc-description' }, view.description)] : []),
    );
    this.amountText = amount;
  }

  private amountText = '';

  private heading(text: string): HTMLElement {
    return h(this.options.headingLevel === 1 ? 'h1' : 'h2', { id: `${this.idPrefix}-heading`, class: 'pc-heading', tabindex: -1 }, text);
  }

  /** Puts a step in place; a new step (not a repeated poll answer) takes focus and is announced. */
  private showStep(key: string, title: string, build: (heading: HTMLElement) => HTMLElement, poll: boolean): void {
    const heading = this.heading(title);
    const changed = this.shown !== key;
    this.shown = key;
    this.body.replaceChildren(build(heading));
    if (changed) {
      heading.focus();
      this.announce(title);
    }
    if (poll) this.pollWhile(key);
  }

  private pollWhile(key: string): void {
    this.timers.push(
      window.setTimeout(async () => {
        try {
          const view = await this.api.view();
          if (this.shown === key && stepKeyOf(view) === key) this.pollWhile(key);
          else this.render(view);
        } catch {
          if (!this.stopped) this.pollWhile(key);
        }
      }, POLL_MS),
    );
  }

  private showCardForm(view: PublicView): void {
    if (view.deviceFingerprint) {
      // The provider's script runs before the card can be entered (then the form; a slow provider only delays it).
      void loadDeviceFingerprint(this.options.baseUrl, view.deviceFingerprint).then(() => {
        if (!this.stopped) this.showLoadedCardForm(view);
      });
      return;
    }
    this.showLoadedCardForm(view);
  }

  private showLoadedCardForm(view: PublicView): void {
    const decline = view.decline;
    const attempts = view.cardAttempts;
    const parts = cardForm({
      idPrefix: this.idPrefix,
      messages: this.m,
      payLabel: this.m.pay(this.amountText),
      onInvalid: (count) => this.alertWith(this.m.fixFields(count)),
      onValid: (card) => void this.pay(card, parts.setBusy, parts.showProblems),
    });
    // After a reversible decline: the issuer's phrase for the buyer, the attempts left, and the form again.
    const declineLines = decline ? [this.m.declined, this.declinePhrase(view), ...(attempts ? [this.m.attemptsLeft(attempts.remaining)] : []), this.m.tryAnotherCard] : [];
    const declineBox = decline ? h('div', { class: 'pc-decline' }, ...declineLines.map((line, i) => h('p', i === 0 ? { class: 'pc-decline-title' } : {}, line))) : null;
    const key = `card:${attempts?.used ?? 0}`;
    this.showStep(key, this.m.title, (heading) => h('section', { class: 'pc-card', 'aria-labelledby': heading.id }, heading, declineBox, parts.form), false);
    this.alertWith(declineLines.join(' '));
  }

  private async pay(card: CheckedCard, setBusy: (busy: boolean) => void, showProblems: (problems: Partial<Record<CardField, 'number_invalid' | 'cvv_invalid' | 'expiry_invalid' | 'expiry_past'>>) => void): Promise<void> {
    setBusy(true);
    this.alertWith('');
    this.announce(this.m.paying);
    try {
      const token = await this.api.tokenize({ number: card.number, cvv: card.cvv, expMonth: card.expMonth, expYear: card.expYear, holderName: card.holderName });
      const confirmed = await this.api.confirm({ token: token.token, brand: token.brand, bin: token.bin, last4: token.last4, expMonth: card.expMonth, expYear: card.expYear, holderName: card.holderName });
      this.render(confirmed);
    } catch (error) {
      setBusy(false);
      if (error instanceof ApiRefusal && error.code === 'invalid_card') {
        const field = error.param === 'cvv' ? 'cvv' : error.param === 'number' ? 'number' : 'expiry';
        showProblems({ [field]: field === 'cvv' ? 'cvv_invalid' : field === 'number' ? 'number_invalid' : error.message.includes('expired') ? 'expiry_past' : 'expiry_invalid' });
        this.alertWith(this.m.fixFields(1));
        return;
      }
      this.refused(error);
    }
  }

  private showThreeDs(brand: string | null): void {
    this.showStep('three_ds', this.m.threeDsTitle, (heading) =>
      threeDsChallenge(this.actionContext(), heading, async (succeeded) => {
        try {
          this.render(await this.api.threeDs(sandboxThreeDsResult(succeeded, brand)));
        } catch (error) {
          this.refused(error);
        }
      }), true);
  }

  private showEnd(view: PublicView): void {
    const m = this.m;
    const bank = view.methodType === 'pix' || view.methodType === 'boleto';
    let title: string;
    const details: string[] = [];
    if (SUCCESS.has(view.status)) {
      title = bank ? m.paid : m.approved;
      if (view.card) details.push(m.approvedDetail(`${BRAND_LABELS[view.card.brand as CardBrand] || view.card.brand || ''} •••• ${view.card.last4}`.trim()));
    } else if (view.status === 'failed') {
      title = m.failed;
      if (view.decline) details.push(this.declinePhrase(view));
      if (view.checkout?.endedBy === 'attempt_limit') details.push(m.failedAttemptLimit);
    } else {
      title = m.canceled;
      if (view.checkout?.endedBy === 'expired' || bank) details.push(m.expired);
    }
    details.push(m.endNote);
    this.alertWith('');
    this.showStep(`end:${view.status}`, title, (heading) => h('section', { class: `pc-end pc-end-${SUCCESS.has(view.status) ? 'success' : 'failure'}`, 'aria-labelledby': heading.id }, heading, ...details.map((text) => h('p', {}, text))), false);
  }

  private declinePhrase(view: PublicView): string {
    const messages = view.decline?.consumerMessages;
    return (this.options.locale === 'en' ? messages?.en : messages?.ptBR) ?? view.decline?.consumerMessage ?? '';
  }

  /** A refusal of the service or the vault: the buyer reads what to do; a changed payment is shown as it is now. */
  private refused(error: unknown): void {
    if (this.stopped) return;
    const refusal = error instanceof ApiRefusal ? error : new ApiRefusal(0, 'unexpected', 'unexpected');
    if (refusal.status === 409 || refusal.status === 410) {
      void this.refresh();
      return;
    }
    if (refusal.status === 401 || refusal.status === 404) {
      this.clearTimers();
      this.header.replaceChildren();
      this.showStep('invalid', this.m.invalidLink, (heading) => h('section', {}, heading), false);
      return;
    }
    const message =
      refusal.status === 429 ? this.m.tooManyRequests(Math.max(1, Math.ceil((refusal.retryAfterSeconds ?? 60) / 60)))
      : refusal.code === 'checkout_not_configured' || refusal.code === 'hosted_checkout_required' ? this.m.notConfigured
      : refusal.status === 0 && refusal.code === 'network_error' ? this.m.network
      : this.m.unexpected;
    this.alertWith(message);
    if (this.shown === null) {
      const retry = h('button', { type: 'button', class: 'pc-button' }, this.m.retry);
      retry.addEventListener('click', () => void this.start());
      this.body.replaceChildren(retry);
    }
  }

  private actionContext(): ActionContext {
    return {
      idPrefix: this.idPrefix,
      messages: this.m,
      locale: this.options.locale,
      announce: (text) => this.announce(text),
      every: (ms, tick) => this.timers.push(window.setInterval(tick, ms)),
    };
  }

  private announce(text: string): void {
    // Emptied first, so the same words said twice are announced twice.
    this.status.textContent = '';
    window.setTimeout(() => (this.status.textContent = text), 50);
  }

  private alertWith(text: string): void {
    this.alert.textContent = text;
    this.alert.hidden = text === '';
  }

  private clearTimers(): void {
    for (const timer of this.timers) {
      window.clearTimeout(timer);
      window.clearInterval(timer);
    }
    this.timers = [];
  }
}

/** Which step a view asks for, to tell a poll answer that changes nothing from one that moves the buyer on. */
function stepKeyOf(view: PublicView): string {
  if (view.status === 'requires_action' && view.nextAction) return view.nextAction.type;
  if (view.status === 'requires_action' || view.status === 'processing') return 'processing';
  return `other:${view.status}`;
}
