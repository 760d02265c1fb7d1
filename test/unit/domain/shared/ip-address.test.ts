import { expect } from 'chai';
import { canonicalIpAddress, formerSpellings, parseIpAddress } from '../../../../domain/shared/ip-address';

describe('IP addresses (canonical form)', () => {
  it('writes every spelling of one address the same way (RFC 5952; an IPv4-mapped address is its IPv4)', () => {
    const same: Array<[string, string]> = [
      ['2001:db8:0:0::5', '2001:db8::5'],
      ['2001:0db8::5', '2001:db8::5'],
      ['2001:DB8:0000:0000:0000:0000:0000:0005', '2001:db8::5'],
      ['::ffff:203.0.113.77', '203.0.113.77'],
      ['::FFFF:CB00:714D', '203.0.113.77'],
      ['0:0:0:0:0:ffff:cb00:714d', '203.0.113.77'],
      ['203.0.113.77', '203.0.113.77'],
      ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'],
    ];
    for (const [text, canonical] of same) expect(canonicalIpAddress(text), text).to.equal(canonical);
  });

  it('refuses what is not an address on the wire: shorthand IPv4, zone ids, brackets, spaces, names', () => {
    for (const text of ['127.1', '0x7f.0.0.1', '1.2.3.4.5', '256.1.1.1', 'fe80::1%eth0', '[::1]', ' 1.2.3.4', '1.2.3.4\n', 'localhost', '', '1::2::3']) {
      expect(parseIpAddress(text), JSON.stringify(text)).to.equal(null);
    }
  });

  it('names the IPv4 addresses an IPv6 address carries (6to4, Teredo server and client, NAT64, SIIT, IPv4-compatible)', () => {
    const carried = (text: string) => parseIpAddress(text)!.embeddedIPv4.map((a) => a.canonical);
    expect(carried('2002:7f00:1::1')).to.deep.equal(['127.0.0.1']);
    expect(carried('2002:a9fe:a9fe::1')).to.deep.equal(['169.254.169.254']);
    expect(carried('2001:0:4136:e378:8000:63bf:3fff:fdd2')).to.deep.equal(['65.54.227.120', '192.0.2.45']);
    expect(carried('64:ff9b::a9fe:a9fe')).to.deep.equal(['169.254.169.254']);
    expect(carried('::ffff:0:a00:1')).to.deep.equal(['10.0.0.1']);
    expect(carried('::7f00:1')).to.deep.equal(['127.0.0.1']);
    expect(carried('2606:4700:4700::1111')).to.deep.equal([]);
    expect(carried('::1')).to.deep.equal([]);
  });

  it('lists the spellings an earlier, text-comparing version may have stored', () => {
    expect(formerSpellings(parseIpAddress('203.0.113.77')!)).to.deep.equal(['::ffff:203.0.113.77']);
    expect(formerSpellings(parseIpAddress('2001:db8::5')!)).to.deep.equal(['2001:db8:0:0:0:0:0:5', '2001:0db8:0000:0000:0000:0000:0000:0005']);
  });
});
