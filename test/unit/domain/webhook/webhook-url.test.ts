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
  it('writes two spellings of one URL the same way, so the once-per-environment rule sees one URL (rule 5)', () => {
    const canonical = 'https://hooks.example.com/a~b/%2F%C3%A9?x=%20';
    const spellings = [
      'https://hooks.example.com/a~b/%2F%C3%A9?x=%20',
      'https://HOOKS.example.COM./a~b/%2F%C3%A9?x=%20', // host case, trailing dot
      'https://hooks.example.com:443/a%7Eb/%2f%c3%a9?x=%20#part', // default port, encoded unreserved, hex case, fragment
      'https://hooks.example.com/a%7eb/./%2F%C3%A9?x=%20',
    ];
    for (const url of spellings) expect(validateWebhookUrl(url, liveLocal), url).to.equal(canonical);
    expect(validateWebhookUrl('https://hooks.example.com/hook?', liveLocal), 'an empty query').to.equal('https://hooks.example.com/hook');
    expect(validateWebhookUrl('https://hooks.example.com/hook?#x', liveLocal)).to.equal('https://hooks.example.com/hook');
    expect(validateWebhookUrl('https://hooks.example.com:8443/hook', liveLocal), 'a port of its own stays').to.equal('https://hooks.example.com:8443/hook');
    expect(validateWebhookUrl('https://hooks.example.com/a%2Fb', liveLocal), 'a reserved escape stays escaped').to.not.equal(validateWebhookUrl('https://hooks.example.com/a/b', liveLocal));
  });
  it('refuses port 0', () => {
    expect(codeOf(() => validateWebhookUrl('https://hooks.example.com:0/hook', liveLocal))).to.equal('invalid_webhook_url');
    expect(codeOf(() => validateWebhookUrl('http://localhost:0/hook', sandboxLocal))).to.equal('invalid_webhook_url');
  });
  it('refuses 6to4, NAT64 and IPv4-mapped literals that carry an internal IPv4 address (rule 2)', () => {
    for (const host of ['[2002:7f00:1::1]', '[2002:a9fe:a9fe::1]', '[64:ff9b::a9fe:a9fe]', '[::ffff:a9fe:a9fe]', '[2001:0:a9fe:a9fe::1]']) {
      expect(codeOf(() => validateWebhookUrl(`https://${host}/hook`, liveLocal)), host).to.equal('internal_address_blocked');
    }
    expect(validateWebhookUrl('https://[2002:808:808::1]/hook', liveLocal)).to.equal('https://[2002:808:808::1]/hook');
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
      // DNS answering with a 6to4 or NAT64 address around an internal IPv4 address is refused at connection time too.
      for (const address of ['2002:a9fe:a9fe::1', '2002:7f00:1::1', '64:ff9b::a00:1']) {
        expect(() => assertDeliverableAddresses([address], liveLocal, 'hooks.example.com'), address).to.throw(DomainError);
      }
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
