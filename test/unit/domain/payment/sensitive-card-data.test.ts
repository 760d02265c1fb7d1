import { expect } from 'chai';
import {
  SENSITIVE_CARD_FIELDS,
  containsCardNumber,
  isCardNumber,
  namesSecurityCode,
  refuseCardDataInText,
  refuseSensitiveCardData,
} from '../../../../domain/payment/sensitive-card-data';
import { DomainError } from '../../../../domain/shared/domain-error';

/** What the DomainError a call throws tells the client (code, param, message), or null when the call passes. */
function refusal(call: () => void): { code: string; param: unknown; message: string } | null {
  try {
    call();
    return null;
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, param: error.meta.param, message: error.message };
    throw error;
  }
}

describe('sensitive card data (spec, Authentication 8)', () => {
  describe('isCardNumber', () => {
    it('is 13 to 19 digits passing Luhn', () => {
      for (const pan of ['4111111111111111', '5555555555554444', '378282246310005', '4222222222222', '6011111111111117', '4000000000000000006']) {
        expect(isCardNumber(pan), pan).to.equal(true);
      }
    });

    it('is not digits failing Luhn, fewer than 13 or more than 19 digits, or anything but digits', () => {
      for (const text of ['4111111111111112', '5555555555554445', '411111111111', '41111111111111111113', '4111 1111 1111 1111', '411111111111111a', '']) {
        expect(isCardNumber(text), text).to.equal(false);
      }
    });
  });

  describe('containsCardNumber', () => {
    it('finds a card number anywhere in a text, written with single spaces or dashes between groups', () => {
      for (const text of ['paid with 4111 1111 1111 1111, thanks', 'card=5555-5555-5555-4444', 'x 378282246310005', '4111111111111111']) {
        expect(containsCardNumber(text), text).to.equal(true);
      }
    });

    it('leaves digits that fail Luhn, short numbers and runs broken by other characters', () => {
      for (const text of ['order 4111 1111 1111 1112', 'batch 4111111111', '4111  1111  1111  1111', '4111.1111.1111.1111', 'no digits']) {
        expect(containsCardNumber(text), text).to.equal(false);
      }
    });
  });

  describe('namesSecurityCode', () => {
    it('knows the keys a security code is filed under, in any case', () => {
      for (const key of ['cvv', 'CVV2', 'cvc', 'Cvc2', 'security_code', 'security-code', 'securityCode', 'SECURITYCODE']) {
        expect(namesSecurityCode(key), key).to.equal(true);
      }
    });

    it('does not take keys that merely contain those words', () => {
      for (const key of ['cvv_hint', 'mycvv', 'cvv3', 'security', 'code', 'security__code']) {
        expect(namesSecurityCode(key), key).to.equal(false);
      }
    });
  });

  describe('refuseSensitiveCardData', () => {
    it('refuses every card-number and security-code field, on the object or its card, naming it', () => {
      for (const name of SENSITIVE_CARD_FIELDS) {
        const onBody = refusal(() => refuseSensitiveCardData({ amount: 100, [name]: 'x' }));
        expect(onBody?.code, name).to.equal('sensitive_card_data');
        expect(onBody?.param, name).to.equal(`body.${name}`);
        expect(onBody?.message).to.match(/never accepts card numbers or security codes/);
        const onCard = refusal(() => refuseSensitiveCardData({ card: { token: 'tok_12345678', [name]: 'x' } }));
        expect(onCard?.param, name).to.equal(`body.card.${name}`);
      }
    });

    it('refuses a card number sent as the card token, spaced or not', () => {
      for (const token of ['4111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1111']) {
        const error = refusal(() => refuseSensitiveCardData({ card: { token } }));
        expect(error, token).to.include({ code: 'sensitive_card_data', param: 'body.card.token' });
      }
    });

    it('names the params from the location given', () => {
      expect(refusal(() => refuseSensitiveCardData({ card: { cvv: '123' } }, 'body.source'))?.param).to.equal('body.source.card.cvv');
    });

    it('lets a vault token, a digit token failing Luhn and a body without a card through', () => {
      expect(refusal(() => refuseSensitiveCardData({ card: { token: 'tok_4111111111111111' } }))).to.equal(null);
      expect(refusal(() => refuseSensitiveCardData({ card: { token: '4111111111111112' } }))).to.equal(null);
      expect(refusal(() => refuseSensitiveCardData({ amount: 100, paymentMethodId: 'pm_1' }))).to.equal(null);
    });
  });

  describe('refuseCardDataInText', () => {
    const text = (freeText: Array<[string, unknown]>, metadata?: Record<string, unknown>) =>
      refusal(() => refuseCardDataInText({ metadata, metadataParam: 'body.metadata', freeText }));

    it('refuses a metadata key naming a security code, whatever its value', () => {
      const error = text([], { order: 'A1', CVV: 'hello' });
      expect(error).to.include({ code: 'sensitive_card_data', param: 'body.metadata.CVV' });
      expect(error?.message).to.match(/never accepts card security codes/);
    });

    it('refuses the first free-text field holding a card number, naming it', () => {
      const error = text([
        ['body.description', 'order 42'],
        ['body.items[1].name', 'x 378282246310005'],
        ['body.reason', '4111111111111111'],
      ]);
      expect(error).to.include({ code: 'sensitive_card_data', param: 'body.items[1].name' });
      expect(error?.message).to.match(/looks like it holds a card number/);
    });

    it('checks the metadata keys before the free text', () => {
      expect(text([['body.description', '4111111111111111']], { cvc: '1' })?.param).to.equal('body.metadata.cvc');
    });

    it('leaves values that are not text, text without a card number, and no metadata at all', () => {
      expect(text([['body.metadata.n', 4111111111111111], ['body.description', 'order 4111 1111 1111 1112'], ['body.reason', undefined]])).to.equal(null);
    });
  });
});
