import { expect } from 'chai';
import {
  credentialFieldViews,
  maskedPreview,
  mergeConfig,
  mergeCredentials,
} from '../../../../domain/connector-account/credential-fields';

const SCHEMA = {
  type: 'object' as const,
  properties: {
    merchantId: { type: 'string' },
    apiKey: { type: 'string', 'x-secret': true },
    webhookSecret: { type: 'string', 'x-secret': true },
  },
  required: ['merchantId', 'apiKey'],
};

describe('connector account credential fields', () => {
  describe('views (reads never return credentials)', () => {
    it('reports filled for every schema field, a preview only for non-secret ones', () => {
      const views = credentialFieldViews(SCHEMA, { merchantId: 'merchant-123456', apiKey: 'sk_live_very_secret' });
      expect(views).to.deep.equal({
        apiKey: { filled: true },
        merchantId: { filled: true, preview: '••••3456' },
        webhookSecret: { filled: false },
      });
    });

    it('treats a stored field the schema does not describe as secret', () => {
      expect(credentialFieldViews(SCHEMA, { legacyToken: 'abcdefghijkl' }).legacyToken).to.deep.equal({ filled: true });
    });

    it('never shows more than a third of a value, nor more than 4 characters', () => {
      expect(maskedPreview('abcdefghijklmnop')).to.equal('••••mnop');
      expect(maskedPreview('abcdef')).to.equal('••••ef');
      expect(maskedPreview('ab')).to.equal('••••');
    });
  });

  describe('PATCH merge of credentials', () => {
    it('keeps omitted and empty credentials, replaces sent ones, and says whether anything changed', () => {
      const current = { merchantId: 'm1', apiKey: 'k1' };
      expect(mergeCredentials(current, { apiKey: '' })).to.deep.equal({ merged: current, changed: false });
      expect(mergeCredentials(current, undefined)).to.deep.equal({ merged: current, changed: false });
      expect(mergeCredentials(current, { apiKey: 'k1' }).changed, 'same value').to.equal(false);
      expect(mergeCredentials(current, { apiKey: 'k2' })).to.deep.equal({ merged: { merchantId: 'm1', apiKey: 'k2' }, changed: true });
    });
  });

  describe('PATCH merge of config', () => {
    it('replaces sent keys, removes keys sent as null, keeps the rest; null as a whole resets everything', () => {
      const current = { softDescriptor: 'SHOP', antifraudEnabled: true };
      expect(mergeConfig(current, { softDescriptor: null, captureDeadlineDays: 5 })).to.deep.equal({ antifraudEnabled: true, captureDeadlineDays: 5 });
      expect(mergeConfig(current, undefined)).to.deep.equal(current);
      expect(mergeConfig(current, null)).to.deep.equal({});
    });
  });
});
