import { expect } from 'chai';
import { isInternalAddress, isIpLiteral, isLoopbackAddress } from '../../../../domain/webhook/internal-address';

describe('isInternalAddress', () => {
  const internal = [
    '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '127.9.9.9',
    '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.255', '0.0.0.0', '0.1.2.3',
    '255.255.255.255', '::1', '::', 'fe80::1', 'febf::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:10.0.0.1',
    '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1', '::ffff:c0a8:101', 'fe80::1%eth0', 'not-an-ip',
    '64:ff9b::a00:1',
    // 6to4 (2002::/16) and Teredo (2001::/32) carry an IPv4 address: loopback, link-local (metadata), private.
    '2002:7f00:1::1', '2002:a9fe:a9fe::1', '2002:c0a8:101::1', '2002:a00:1::', '2001:0:a9fe:a9fe::1', '2001:0:4136:e378:8000:63bf:80ff:fffe',
    // IPv4-compatible, SIIT, NAT64 with internal IPv4; local-use NAT64; documentation, discard, site-local, broadcast.
    '::127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '64:ff9b:1::a00:1', '2001:db8::1', '100::1', 'fec0::1', '192.0.2.1',
    // Spelled differently, still the same internal address.
    '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:ffff:7f00:0001', 'FE80::1', '::FFFF:A9FE:A9FE',
  ];
  const external = ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '192.169.0.1',
    '11.0.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '223.255.255.255',
    // The same embeddings around a public IPv4 address are public.
    '2002:808:808::1', '64:ff9b::808:808', '2001:0:808:808::f7f7:f7f7'];
  for (const ip of internal) it(`refuses ${ip}`, () => expect(isInternalAddress(ip)).to.equal(true));
  for (const ip of external) it(`accepts ${ip}`, () => expect(isInternalAddress(ip)).to.equal(false));

  it('refuses what it cannot read as an address: zone ids, shorthand IPv4, text', () => {
    for (const text of ['fe80::1%eth0', '127.1', '0x7f.0.0.1', '1::2::3', '1:2:3', '', ' 8.8.8.8']) expect(isInternalAddress(text), text).to.equal(true);
  });

  it('tells IP literals (bracketed IPv6 too) from host names', () => {
    expect(isIpLiteral('[2001:db8::1]')).to.equal(true);
    expect(isIpLiteral('8.8.8.8')).to.equal(true);
    expect(isIpLiteral('hooks.example.com')).to.equal(false);
  });

  it('knows loopback in any spelling, and nothing else, as loopback', () => {
    for (const ip of ['127.0.0.1', '127.8.8.8', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) expect(isLoopbackAddress(ip), ip).to.equal(true);
    for (const ip of ['10.0.0.1', 'fe80::1', '8.8.8.8', 'localhost']) expect(isLoopbackAddress(ip), ip).to.equal(false);
  });
});
