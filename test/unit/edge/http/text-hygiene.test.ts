import { expect } from 'chai';
import { HttpError } from '../../../../edge/http/errors';
import { findUnstorableText, isStorableText, refuseUnstorablePathParameters, refuseUnstorableText } from '../../../../edge/http/text-hygiene';
import { awkwardStrings, unstorableStrings } from '../../../support/awkward-strings';

describe('text the database cannot store (edge hygiene)', () => {
  it('accepts every awkward but storable string, surrogate pairs (emoji) included', () => {
    for (const text of [...awkwardStrings, '💳', 'a\ud83d\udcb3b', '\uffff', '\ufffd']) expect(isStorableText(text), JSON.stringify(text.slice(0, 40))).to.equal(true);
  });

  it('refuses a NUL and an unpaired surrogate anywhere in a string', () => {
    for (const text of unstorableStrings) expect(isStorableText(text), JSON.stringify(text)).to.equal(false);
  });

  it('names the string by its place, in the error param notation', () => {
    const body = { a: 'fine', items: [{ name: 'ok' }, { name: 'x\u0000' }] };
    expect(findUnstorableText(body, 'body')).to.deep.equal({ param: 'body.items[1].name', inFieldName: false });
    expect(findUnstorableText({ list: ['\udc00'] }, 'body')).to.deep.equal({ param: 'body.list[0]', inFieldName: false });
    expect(findUnstorableText({ a: 1, b: null, c: true, d: ['x', { e: 'y' }] }, 'body')).to.equal(null);
  });

  it('names the object holding a field name (a map key) that cannot be stored, never the name itself', () => {
    expect(findUnstorableText({ metadata: { ['k\ud800']: 'v' } }, 'body')).to.deep.equal({ param: 'body.metadata', inFieldName: true });
    expect(findUnstorableText({ ['\u0000']: 'v' }, 'query')).to.deep.equal({ param: 'query', inFieldName: true });
  });

  it('refuses a body or query with 422 validation_failed, and a path parameter with 400, without echoing the text', () => {
    const refusal = (run: () => void): HttpError => {
      try {
        run();
      } catch (error) {
        return error as HttpError;
      }
      throw new Error('not refused');
    };
    const body = refusal(() => refuseUnstorableText({ metadata: { note: 'secret\u0000' } }, 'body'));
    expect(body).to.be.instanceOf(HttpError);
    expect([body.code, body.status, body.options.param]).to.deep.equal(['validation_failed', 422, 'body.metadata.note']);
    expect(body.message).not.to.contain('secret');
    const query = refusal(() => refuseUnstorableText({ email: ['a', 'b\u0000'] }, 'query'));
    expect([query.status, query.options.param]).to.deep.equal([422, 'query.email[1]']);
    const path = refusal(() => refuseUnstorablePathParameters({ id: 'pay_\u0000' }));
    expect([path.code, path.status, path.options.param]).to.deep.equal(['bad_request', 400, 'path.id']);
    expect(() => refuseUnstorablePathParameters({ id: 'pay_1', name: '%ED%A0%80' })).not.to.throw();
  });
});
