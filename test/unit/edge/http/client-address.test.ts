import { expect } from 'chai';
import { clientAddress, parseAddress, TrustedProxies } from '../../../../edge/http/client-address';

describe('client address (TRUSTED_PROXIES, X-Forwarded-For)', () => {
  const proxies = TrustedProxies.parse(['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);

  it('with no trusted proxy is the socket peer, whatever X-Forwarded-For says', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', TrustedProxies.NONE)).to.equal('203.0.113.9');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', proxies)).to.equal('203.0.113.9');
  });

  it('behind a trusted proxy is the right-most address not in a trusted range', () => {
    expect(clientAddress('10.1.2.3', '198.51.100.1', proxies)).to.equal('198.51.100.1');
    // The client wrote the left-most entry itself: only what the trusted proxies appended is believed.
    expect(clientAddress('10.1.2.3', '6.6.6.6, 198.51.100.1, 10.9.9.9', proxies)).to.equal('198.51.100.1');
    expect(clientAddress('10.1.2.3', ['6.6.6.6', '198.51.100.2'], proxies)).to.equal('198.51.100.2');
    expect(clientAddress('192.0.2.7', '2001:db8::1, fd00::5', proxies)).to.equal('2001:db8::1');
  });

  it('a chain of trusted hops ends at its left-most address; a bare or absent header leaves the peer', () => {
    expect(clientAddress('10.1.2.3', '10.5.5.5, 10.6.6.6', proxies)).to.equal('10.5.5.5');
    expect(clientAddress('10.1.2.3', undefined, proxies)).to.equal('10.1.2.3');
    expect(clientAddress('10.1.2.3', ' , ', proxies)).to.equal('10.1.2.3');
  });

  it('stops at the last trusted hop when an entry is not an address (a client cannot mint addresses)', () => {
    expect(clientAddress('10.1.2.3', '198.51.100.1, not-an-ip', proxies)).to.equal('10.1.2.3');
    expect(clientAddress('10.1.2.3', '198.51.100.1, 127.1, 10.4.4.4', proxies)).to.equal('10.4.4.4');
  });

  it('compares and answers in one canonical form (IPv4-mapped IPv6 is IPv4)', () => {
    expect(clientAddress('::ffff:10.1.2.3', '::ffff:198.51.100.1', proxies)).to.equal('198.51.100.1');
    expect(clientAddress('::ffff:127.0.0.1', undefined, TrustedProxies.NONE)).to.equal('127.0.0.1');
    expect(clientAddress('2001:0db8:0000::0001', undefined, TrustedProxies.NONE)).to.equal('2001:db8::1');
    expect(parseAddress('0x7f.0.0.1')).to.equal(null);
    expect(parseAddress('1.2.3')).to.equal(null);
  });

  it('parses CIDRs and bare addresses and refuses anything else with a sentence naming the entry', () => {
    const mapped = TrustedProxies.parse(['::ffff:10.0.0.0/104']);
    expect(mapped.includes(parseAddress('10.200.0.1')!)).to.equal(true);
    expect(proxies.includes(parseAddress('192.0.2.7')!)).to.equal(true);
    expect(proxies.includes(parseAddress('192.0.2.8')!)).to.equal(false);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0/8', 'fd00::/129', '']) {
      expect(() => TrustedProxies.parse([bad]), bad).to.throw(`"${bad}" is not an IPv4 or IPv6 CIDR`);
    }
  });
});
