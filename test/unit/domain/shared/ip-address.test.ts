import { expect } from 'chai';
import { canonicalIpAddress, formerSpellings, ipRangeContains, parseIpAddress, parseIpRange } from '../../../../domain/shared/ip-address';

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

describe('IP ranges (CIDR)', () => {
  const contains = (range: string, address: string) => ipRangeContains(parseIpRange(range)!, parseIpAddress(address)!);

  it('reads CIDRs and bare addresses (that address alone)', () => {
    expect(parseIpRange('10.0.0.0/8')).to.deep.include({ prefixLength: 8 });
    expect(parseIpRange('192.0.2.7')).to.deep.include({ prefixLength: 32 });
    expect(parseIpRange('2001:db8::1')).to.deep.include({ prefixLength: 128 });
    expect(contains('10.0.0.0/8', '10.200.3.4')).to.equal(true);
    expect(contains('10.0.0.0/8', '11.0.0.1')).to.equal(false);
    expect(contains('192.0.2.7', '192.0.2.8')).to.equal(false);
    expect(contains('fd00::/8', 'fdff::1')).to.equal(true);
    expect(contains('0.0.0.0/0', '203.0.113.9')).to.equal(true);
  });

  it('takes an IPv4-mapped range of /96 or longer as the IPv4 range, and never mixes versions', () => {
    expect(parseIpRange('::ffff:10.0.0.0/104')!.network.canonical).to.equal('10.0.0.0');
    expect(contains('::ffff:10.0.0.0/104', '10.9.9.9')).to.equal(true);
    expect(contains('::/0', '10.9.9.9')).to.equal(false);
    expect(contains('0.0.0.0/0', '2001:db8::1')).to.equal(false);
  });

  it('refuses what is not a CIDR: prefixes out of range or not decimal, shorthand IPv4, zone ids, names', () => {
    for (const text of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/0x8', '10.0.0/8', 'fe80::%eth0/64', 'proxy.internal', '']) {
      expect(parseIpRange(text), JSON.stringify(text)).to.equal(null);
    }
  });
});
