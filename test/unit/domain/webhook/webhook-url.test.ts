import { expect } from 'chai';
import { DomainError } from '../../../../domain/shared/domain-error';
import { assertDeliverableAddresses, validateWebhookUrl, type UrlContext } from '../../../../domain/webhook/webhook-url';

const sandboxLocal: UrlContext = { environment: 'sandbox', deployment: 'local' };
const sandboxProd: UrlContext = { environment: 'sandbox', deployment: 'production' };
const liveLocal: UrlContext = { environment: 'live', deployment: 'local' };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).meta.param).to.equal('body.url');
    return (error as DomainError).code;
  }
  return undefined;
}

describe('webhook URL rules', () => {
  it('accepts a public https URL and normalizes it', () => {
    expect(validateWebhookUrl('https://Hooks.Example.com/path?x=1#frag', liveLocal)).to.equal('https://hooks.example.com/path?x=1');
  });
  it('requires https (rule 1)', () => {
    expect(codeOf(() => validateWebhookUrl('http://hooks.example.com/', liveLocal))).to.equal('invalid_webhook_url');
    expect(codeOf(() => validateWebhookUrl('ftp://hooks.example.com/', liveLocal))).to.equal('invalid_webhook_url');
  });
  it('refuses user and password (rule 1)', () => {
    expect(codeOf(() => validateWebhookUrl('https://user:pw@hooks.example.com/', liveLocal))).to.equal('invalid_webhook_url');
    expect(codeOf(() => validateWebhookUrl('https://user@hooks.example.com/', liveLocal))).to.equal('invalid_webhook_url');
  });
  it('enforces 1-2048 characters', () => {
    expect(codeOf(() => validateWebhookUrl('', liveLocal))).to.equal('validation_failed');
    const long = 'https://hooks.example.com/' + 'a'.repeat(2048);
    expect(codeOf(() => validateWebhookUrl(long, liveLocal))).to.equal('validation_failed');
    const max = 'https://hooks.example.com/' + 'a'.repeat(2048 - 'https://hooks.example.com/'.length);
    expect(validateWebhookUrl(max, liveLocal)).to.have.length(2048);
  });
  it('refuses malformed URLs', () => {
    expect(codeOf(() => validateWebhookUrl('not a url', liveLocal))).to.equal('invalid_webhook_url');
  });
  const internalHosts = [
    '10.1.2.3', '172.20.0.1', '192.168.0.10', '127.0.0.2', '169.254.169.254', '100.64.1.1', '224.0.0.5', '0.0.0.0',
    '[::1]', '[fe80::1]', '[fd00::1]', '[ff02::1]', '[::ffff:10.0.0.1]', '[::ffff:127.0.0.1]', '0x7f000001', '2130706433', '017700000001',
    'intranet', 'myhost', 'printer.local', 'svc.internal', 'nas.lan', 'wiki.corp', 'router.home', 'portal.intranet',
    'box.localdomain', 'db.private', 'sub.localhost', 'metadata.google.internal',
  ];
  for (const host of internalHosts) {
    it(`refuses internal host ${host} (rule 2)`, () => {
      expect(codeOf(() => validateWebhookUrl(`https://${host}/hook`, liveLocal))).to.equal('internal_address_blocked');
    });
  }
  it('accepts localhost and 127.0.0.1, also over http, only in sandbox on a local installation (rule 4)', () => {
    expect(validateWebhookUrl('http://localhost:3000/hook', sandboxLocal)).to.equal('http://localhost:3000/hook');
    expect(validateWebhookUrl('http://127.0.0.1:3000/hook', sandboxLocal)).to.equal('http://127.0.0.1:3000/hook');
    expect(validateWebhookUrl('https://localhost/hook', sandboxLocal)).to.equal('https://localhost/hook');
    expect(codeOf(() => validateWebhookUrl('http://localhost:3000/hook', sandboxProd))).to.equal('internal_address_blocked');
    expect(codeOf(() => validateWebhookUrl('https://127.0.0.1/hook', liveLocal))).to.equal('internal_address_blocked');
    expect(codeOf(() => validateWebhookUrl('http://10.0.0.1/hook', sandboxLocal))).to.equal('invalid_webhook_url');
  });

  describe('connection-time check (rule 3)', () => {
    it('blocks when any resolved address is internal', () => {
      expect(() => assertDeliverableAddresses(['93.184.216.34', '10.0.0.7'], liveLocal, 'hooks.example.com'))
        .to.throw(DomainError).with.property('code', 'internal_address_blocked');
      expect(() => assertDeliverableAddresses(['::ffff:169.254.169.254'], liveLocal, 'hooks.example.com')).to.throw(DomainError);
      expect(() => assertDeliverableAddresses([], liveLocal, 'hooks.example.com')).to.throw(DomainError);
    });
    it('passes public addresses', () => {
      expect(() => assertDeliverableAddresses(['93.184.216.34', '2606:2800:220:1::1'], liveLocal, 'hooks.example.com')).not.to.throw();
    });
    it('lets a local sandbox localhost URL reach loopback but nothing else internal', () => {
      expect(() => assertDeliverableAddresses(['127.0.0.1', '::1'], sandboxLocal, 'localhost')).not.to.throw();
      expect(() => assertDeliverableAddresses(['127.0.0.1'], sandboxProd, 'localhost')).to.throw(DomainError);
      expect(() => assertDeliverableAddresses(['10.0.0.1'], sandboxLocal, 'localhost')).to.throw(DomainError);
      expect(() => assertDeliverableAddresses(['127.0.0.1'], sandboxLocal, 'rebind.example.com')).to.throw(DomainError);
    });
  });
});
