import { expect } from 'chai';
import { isInternalAddress, parseIPv6 } from '../../../../domain/webhook/internal-address';

describe('isInternalAddress', () => {
  const internal = [
    '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '127.9.9.9',
    '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.255', '0.0.0.0', '0.1.2.3',
    '255.255.255.255', '::1', '::', 'fe80::1', 'febf::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:10.0.0.1',
    '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1', '::ffff:c0a8:101', 'fe80::1%eth0', 'not-an-ip',
    '64:ff9b::a00:1',
  ];
  const external = ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '192.169.0.1',
    '11.0.0.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '223.255.255.255'];
  for (const ip of internal) it(`refuses ${ip}`, () => expect(isInternalAddress(ip)).to.equal(true));
  for (const ip of external) it(`accepts ${ip}`, () => expect(isInternalAddress(ip)).to.equal(false));

  it('parses compressed and embedded IPv6 forms', () => {
    expect(parseIPv6('::ffff:1.2.3.4')).to.deep.equal([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6('2001:db8::1')).to.deep.equal([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('1::2::3')).to.equal(null);
    expect(parseIPv6('1:2:3')).to.equal(null);
  });
});
