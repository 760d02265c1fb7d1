import { expect } from 'chai';
import { Recipient } from '../../../../domain/recipient/recipient';
import { DomainError } from '../../../../domain/shared/domain-error';
import { bankAccountInput, recipientInput } from '../../../support/builders/recipient.builder';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const LATER = new Date('2026-03-02T08:30:00.000Z');
const bankAccount = bankAccountInput();
const base = { id: 'rcp_1', organizationId: 'org_1', environment: 'sandbox' as const, now: NOW };
const fields = recipientInput();

/** Asserts `fn` is refused with validation_failed naming `param`. */
const refused = (fn: () => unknown, param: string) => expect(fn).to.throw(DomainError).that.deep.include({ code: 'validation_failed', meta: { param } });

describe('Recipient', () => {
  it('creates a recipient, storing documents as digits and the e-mail in lower case; creation records no event', () => {
    const r = Recipient.create({ ...base, ...fields, name: ' Loja da Ana ', email: 'Financeiro@Ana.example', bankAccount: { ...bankAccount, accountDigit: 'x' } });
    expect(r.toPrimitives()).to.deep.equal({
      id: 'rcp_1',
      organizationId: 'org_1',
      environment: 'sandbox',
      name: 'Loja da Ana',
      document: '11222333000181',
      email: 'financeiro@ana.example',
      bankAccount: { ...bankAccount, accountDigit: 'X', holderDocument: '11222333000181' },
      metadata: {},
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
    expect(Recipient.create({ ...base, ...fields, document: '529.982.247-25' }).toPrimitives().document).to.equal('52998224725');
    expect(r.pullEvents()).to.deep.equal([]);
  });

  const invalidCases: Array<[string, Record<string, unknown>, string]> = [
    ['empty name', { name: ' ' }, 'body.name'],
    ['name over 120', { name: 'x'.repeat(121) }, 'body.name'],
    ['bad e-mail', { email: 'not-an-email' }, 'body.email'],
    ['CPF with wrong check digits', { document: '52998224724' }, 'body.document'],
    ['CNPJ with wrong check digits', { document: '11222333000182' }, 'body.document'],
    ['no bank account', { bankAccount: undefined }, 'body.bankAccount'],
    ['bank code of 2 digits', { bankAccount: { ...bankAccount, bankCode: '34' } }, 'body.bankAccount.bankCode'],
    ['bank code of 4 digits', { bankAccount: { ...bankAccount, bankCode: '0341' } }, 'body.bankAccount.bankCode'],
    ['bank code with a letter', { bankAccount: { ...bankAccount, bankCode: '34A' } }, 'body.bankAccount.bankCode'],
    ['empty branch', { bankAccount: { ...bankAccount, branch: '' } }, 'body.bankAccount.branch'],
    ['branch of 6 digits', { bankAccount: { ...bankAccount, branch: '123456' } }, 'body.bankAccount.branch'],
    ['account of 21 digits', { bankAccount: { ...bankAccount, account: '1'.repeat(21) } }, 'body.bankAccount.account'],
    ['account with a hyphen', { bankAccount: { ...bankAccount, account: '1234-5' } }, 'body.bankAccount.account'],
    ['account digit of 3 characters', { bankAccount: { ...bankAccount, accountDigit: '123' } }, 'body.bankAccount.accountDigit'],
    ['empty account digit', { bankAccount: { ...bankAccount, accountDigit: '' } }, 'body.bankAccount.accountDigit'],
    ['unknown account type', { bankAccount: { ...bankAccount, type: 'salary' } }, 'body.bankAccount.type'],
    ['empty holder name', { bankAccount: { ...bankAccount, holderName: '' } }, 'body.bankAccount.holderName'],
    ['holder document with wrong check digits', { bankAccount: { ...bankAccount, holderDocument: '52998224724' } }, 'body.bankAccount.holderDocument'],
  ];
  for (const [name, invalidFields, param] of invalidCases) {
    it(`refuses ${name}`, () => {
      refused(() => Recipient.create({ ...base, ...fields, ...invalidFields } as Parameters<typeof Recipient.create>[0]), param);
    });
  }

  it('a change records one recipient.updated with the changed attributes\' previous values, and moves updatedAt', () => {
    const r = Recipient.create({ ...base, ...fields, email: 'a@ana.example', metadata: { tier: 'gold', keep: 1 } });
    const before = r.toPrimitives();
    const changed = r.update({ name: 'Loja da Ana', email: null, bankAccount: { ...bankAccount, account: '999' }, metadata: { tier: null, vip: true } }, LATER);
    expect(changed).to.equal(true);
    const after = r.toPrimitives();
    expect(after).to.deep.include({ name: 'Loja da Ana', email: null, metadata: { keep: 1, vip: true }, updatedAt: LATER.toISOString(), createdAt: NOW.toISOString() });
    expect(after.bankAccount.account).to.equal('999');
    const events = r.pullEvents();
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ type: 'recipient.updated', recipientId: 'rcp_1', organizationId: 'org_1', environment: 'sandbox' });
    // name was sent unchanged: it is not among the changed attributes.
    expect(events[0]!.previousAttributes).to.deep.equal({ email: before.email, bankAccount: before.bankAccount, metadata: before.metadata });
    expect(events[0]!.recipient).to.deep.equal(after);
    expect(r.pullEvents()).to.deep.equal([]);
  });

  it('a PATCH that changes nothing records nothing and keeps updatedAt, whatever the key order of what was stored', () => {
    const created = Recipient.create({ ...base, ...fields, email: 'a@ana.example', metadata: { a: 1, b: 'two' } }).toPrimitives();
    // As PostgreSQL's jsonb hands objects back: keys in its own order.
    const reordered = JSON.parse(JSON.stringify({ ...created, bankAccount: Object.fromEntries(Object.entries(created.bankAccount).reverse()) }));
    const r = Recipient.fromPrimitives(reordered);
    const changed = r.update({ name: 'Loja da Ana', document: '11222333000181', email: 'A@ana.example', bankAccount, metadata: { a: 1, gone: null } }, LATER);
    expect(changed).to.equal(false);
    expect(r.pullEvents()).to.deep.equal([]);
    expect(r.toPrimitives().updatedAt).to.equal(NOW.toISOString());
    expect(r.update({}, LATER)).to.equal(false);
  });

  it('a refused PATCH changes nothing, even the fields before the refused one', () => {
    const r = Recipient.create({ ...base, ...fields });
    const before = r.toPrimitives();
    refused(() => r.update({ name: 'Other name', bankAccount: { ...bankAccount, bankCode: '1' } }, LATER), 'body.bankAccount.bankCode');
    refused(() => r.update({ document: '123' }, LATER), 'body.document');
    expect(r.toPrimitives()).to.deep.equal(before);
    expect(r.pullEvents()).to.deep.equal([]);
  });
});
