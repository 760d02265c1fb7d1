/**
 * The card form: labelled fields with the brand shown as the number is typed, every problem written under its field
 * (aria-invalid, aria-describedby) and summed up in the alert region. The form has no action and its fields no
 * names: the card can only leave through the vault call the controller makes.
 */
import { BRAND_LABELS, checkCard, detectBrand, formatCardNumber, formatExpiry, type CardField, type CardProblem, type CheckedCard } from './card-checks';
import { h } from './dom';
import type { Messages } from './messages';

export interface CardFormParts {
  readonly form: HTMLFormElement;
  /** Shows problems (from the page's checks or the vault's) and focuses the first field with one. */
  showProblems(problems: Partial<Record<CardField, CardProblem>>): void;
  setBusy(busy: boolean): void;
}

interface Field {
  readonly input: HTMLInputElement;
  readonly error: HTMLElement;
  readonly wrapper: HTMLElement;
}

export function cardForm(options: {
  idPrefix: string;
  messages: Messages;
  payLabel: string;
  onValid: (card: CheckedCard) => void;
  onInvalid: (count: number) => void;
}): CardFormParts {
  const { idPrefix, messages: m } = options;
  const field = (name: CardField, label: string, attributes: Record<string, string>, hint?: string): Field => {
    const id = `${idPrefix}-${name}`;
    const describedBy = [hint ? `${id}-hint` : null, `${id}-error`].filter(Boolean).join(' ');
    const input = h('input', { id, type: 'text', 'aria-describedby': describedBy, spellcheck: 'false', ...attributes });
    const error = h('p', { id: `${id}-error`, class: 'pc-error', hidden: true });
    const wrapper = h('div', { class: `pc-field pc-field-${name}` }, h('label', { for: id }, label), hint ? h('p', { id: `${id}-hint`, class: 'pc-hint' }, hint) : null, input, error);
    return { input, error, wrapper };
  };

  const number = field('number', m.cardNumber, { inputmode: 'numeric', autocomplete: 'cc-number', maxlength: '23', required: 'true' });
  const brand = h('p', { id: `${idPrefix}-brand`, class: 'pc-brand' });
  number.input.setAttribute('aria-describedby', `${idPrefix}-brand ${number.input.getAttribute('aria-describedby')}`);
  number.wrapper.insertBefore(brand, number.error);
  const expiry = field('expiry', m.expiry, { inputmode: 'numeric', autocomplete: 'cc-exp', maxlength: '7', placeholder: m.expiryHint, required: 'true' }, m.expiryHint);
  const cvv = field('cvv', m.cvv, { inputmode: 'numeric', autocomplete: 'cc-csc', maxlength: '4', required: 'true' }, m.cvvHint);
  const holderName = field('holderName', m.holderName, { autocomplete: 'cc-name', maxlength: '120', required: 'true' });
  const fields: Record<CardField, Field> = { number, expiry, cvv, holderName };
  const submit = h('button', { type: 'submit', class: 'pc-button pc-pay' }, options.payLabel);

  number.input.addEventListener('input', () => {
    number.input.value = formatCardNumber(number.input.value);
    const label = BRAND_LABELS[detectBrand(number.input.value)];
    brand.textContent = label ? m.brandDetected(label) : '';
  });
  expiry.input.addEventListener('input', (event) => {
    // Deleting the slash must not bring it straight back.
    if ((event as InputEvent).inputType?.startsWith('delete')) return;
    expiry.input.value = formatExpiry(expiry.input.value);
  });

  const form = h('form', { class: 'pc-form', novalidate: true },
    number.wrapper,
    h('div', { class: 'pc-row' }, expiry.wrapper, cvv.wrapper),
    holderName.wrapper,
    submit,
  );

  const showProblems = (problems: Partial<Record<CardField, CardProblem>>) => {
    let first: HTMLInputElement | null = null;
    for (const [name, f] of Object.entries(fields) as Array<[CardField, Field]>) {
      const problem = problems[name];
      f.input.setAttribute('aria-invalid', problem ? 'true' : 'false');
      f.error.hidden = !problem;
      f.error.textContent = problem ? m.problems[problem] : '';
      if (problem && !first) first = f.input;
    }
    (first as HTMLInputElement | null)?.focus();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (submit.disabled) return;
    const checked = checkCard({ number: number.input.value, expiry: expiry.input.value, cvv: cvv.input.value, holderName: holderName.input.value }, new Date());
    if (!checked.ok) {
      showProblems(checked.problems);
      options.onInvalid(Object.keys(checked.problems).length);
      return;
    }
    showProblems({});
    options.onValid(checked.card);
  });

  return {
    form,
    showProblems,
    setBusy(busy) {
      submit.disabled = busy;
      form.setAttribute('aria-busy', String(busy));
      for (const f of Object.values(fields)) f.input.readOnly = busy;
    },
  };
}
