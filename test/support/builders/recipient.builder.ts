import type { BankAccount, RecipientFields } from '../../../domain/recipient/recipient';

/** A bank account every rule accepts (contract.md 7), as a merchant would send it: the holder's CNPJ punctuated. */
export function bankAccountInput(overrides: Record<string, unknown> = {}): BankAccount {
  return {
    bankCode: '341',
    branch: '1234',
    account: '12345678',
    accountDigit: '9',
    type: 'checking',
    holderName: 'Loja da Ana Ltda',
    holderDocument: '11.222.333/0001-81',
    ...overrides,
  } as BankAccount;
}

/** The body of a recipient every rule accepts (POST /v1/recipients), with the given fields replaced or added. */
export function recipientInput(overrides: Record<string, unknown> = {}): RecipientFields {
  return { name: 'Loja da Ana', document: '11.222.333/0001-81', bankAccount: bankAccountInput(), ...overrides } as RecipientFields;
}
