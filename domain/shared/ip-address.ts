import ipaddr from 'ipaddr.js';

/**
 * IP addresses as values: parsed, classified and written in one canonical form, so that two spellings of one
 * address (`2001:0db8::5`, `2001:db8:0:0::5`, `::ffff:203.0.113.77` for `203.0.113.77`) are the same everywhere.
 *
 * The parsing is ipaddr.js, a pure, dependency-free and widely used library: it does no I/O, so the domain may use
 * it (the dependency rule allows it in this file only). Everything else in the domain goes through this module,
 * so no rule compares addresses as text again.
 */

export type IpVersion = 4 | 6;

export interface IpAddress {
  readonly version: IpVersion;
  /** RFC 5952 for IPv6 (lowercase, zeros compressed); dotted decimal for IPv4; an IPv4-mapped IPv6 is its IPv4. */
  readonly canonical: string;
  /** ipaddr.js's special-purpose range name: 'unicast' for an ordinary global address, else loopback, private... */
  readonly range: string;
  /**
   * The IPv4 addresses this IPv6 address carries, by which the network reaches an IPv4 host: 6to4 (2002::/16),
   * Teredo (2001::/32, its server and its client), NAT64 (64:ff9b::/96), SIIT (::ffff:0:0:0/96) and the
   * deprecated IPv4-compatible form (::/96). Empty for IPv4 and for IPv6 addresses that embed none.
   */
  readonly embeddedIPv4: readonly IpAddress[];
}

/**
 * Reads an address the way it is written on the wire: IPv4 as four decimal parts, IPv6 as RFC 4291 text (with an
 * optional IPv4 tail). Brackets, zone ids (`%eth0`), surrounding spaces, and the shorthand IPv4 spellings that
 * `inet_aton` accepts (`127.1`, `0x7f.0.0.1`) are refused: null.
 */
export function parseIpAddress(text: string): IpAddress | null {
  if (typeof text !== 'string') return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return fromIPv4(ipaddr.IPv4.parse(text));
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) return fromIPv6(ipaddr.IPv6.parse(text));
  return null;
}

/** The canonical text of an address (see IpAddress.canonical), or null when the text is not an address. */
export function canonicalIpAddress(text: string): string | null {
  return parseIpAddress(text)?.canonical ?? null;
}

/**
 * The other spellings an earlier version may have recorded for an address, when it compared addresses as text:
 * the IPv4-mapped form of an IPv4 address, and the uncompressed forms of an IPv6 one. Only for reading what was
 * stored before canonical forms; never for storing.
 */
export function formerSpellings(address: IpAddress): string[] {
  if (address.version === 4) return [`::ffff:${address.canonical}`];
  const v6 = ipaddr.IPv6.parse(address.canonical);
  const expanded = v6.toNormalizedString();
  const padded = v6.parts.map((part) => part.toString(16).padStart(4, '0')).join(':');
  return [...new Set([expanded, padded])].filter((spelling) => spelling !== address.canonical);
}

/** A network: every address whose first `prefixLength` bits are those of `network` (a CIDR such as `10.0.0.0/8`). */
export interface IpRange {
  readonly network: IpAddress;
  readonly prefixLength: number;
}

/**
 * Reads a CIDR (`10.0.0.0/8`, `fd00::/8`), or a bare address meaning that address alone, with the address written
 * as parseIpAddress reads one. An IPv4-mapped range of /96 or longer is the IPv4 range (`::ffff:10.0.0.0/104` is
 * `10.0.0.0/8`), as a mapped address is its IPv4 address. Null when the text is neither.
 */
export function parseIpRange(text: string): IpRange | null {
  if (typeof text !== 'string') return null;
  const [addressText = '', prefixText, ...rest] = text.split('/');
  if (rest.length > 0) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) {
    const prefixLength = prefixLengthOf(prefixText, 32);
    return prefixLength === null ? null : { network: fromIPv4(ipaddr.IPv4.parse(addressText)), prefixLength };
  }
  if (addressText.includes('%') || !ipaddr.IPv6.isValid(addressText)) return null;
  const prefixLength = prefixLengthOf(prefixText, 128);
  if (prefixLength === null) return null;
  const v6 = ipaddr.IPv6.parse(addressText);
  if (v6.isIPv4MappedAddress()) {
    // Shorter than /96 the range reaches past the mapped block: it stays an IPv6 range, written as such.
    if (prefixLength < 96) return { network: { version: 6, canonical: v6.toRFC5952String(), range: v6.range(), embeddedIPv4: [] }, prefixLength };
    return { network: fromIPv4(v6.toIPv4Address()), prefixLength: prefixLength - 96 };
  }
  return { network: fromIPv6(v6), prefixLength };
}

/** Whether the address lies in the range; an IPv4 address is never in an IPv6 range, nor the reverse. */
export function ipRangeContains(range: IpRange, address: IpAddress): boolean {
  if (range.network.version !== address.version) return false;
  if (address.version === 4) return ipaddr.IPv4.parse(address.canonical).match(ipaddr.IPv4.parse(range.network.canonical), range.prefixLength);
  return ipaddr.IPv6.parse(address.canonical).match(ipaddr.IPv6.parse(range.network.canonical), range.prefixLength);
}

/** A CIDR's prefix length, decimal digits up to `max`; absent means the whole address. */
function prefixLengthOf(text: string | undefined, max: number): number | null {
  if (text === undefined) return max;
  if (!/^\d{1,3}$/.test(text)) return null;
  const bits = Number(text);
  return bits <= max ? bits : null;
}

function fromIPv4(v4: ipaddr.IPv4): IpAddress {
  return { version: 4, canonical: v4.toString(), range: v4.range(), embeddedIPv4: [] };
}

function fromIPv6(v6: ipaddr.IPv6): IpAddress {
  // An IPv4-mapped address is how a dual-stack socket shows an IPv4 peer: it is that IPv4 address.
  if (v6.isIPv4MappedAddress()) return fromIPv4(v6.toIPv4Address());
  return { version: 6, canonical: v6.toRFC5952String(), range: v6.range(), embeddedIPv4: embeddedIPv4Of(v6) };
}

const ipv4From = (high: number, low: number): IpAddress =>
  fromIPv4(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));

function embeddedIPv4Of(v6: ipaddr.IPv6): IpAddress[] {
  const p = v6.parts;
  switch (v6.range()) {
    case '6to4': // 2002:AABB:CCDD::/48 (RFC 3056)
      return [ipv4From(p[1]!, p[2]!)];
    case 'teredo': // 2001:0:server-ipv4:flags:port:client-ipv4, the client's bits inverted (RFC 4380)
      return [ipv4From(p[2]!, p[3]!), ipv4From(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
    case 'rfc6052': // NAT64 64:ff9b::/96 (RFC 6052); the local-use 64:ff9b:1::/48 is internal by its range alone
    case 'rfc6145': // SIIT ::ffff:0:a.b.c.d (RFC 6145)
      return p[1] === 0xff9b && p[2] !== 0 ? [] : [ipv4From(p[6]!, p[7]!)];
    default:
      // ::a.b.c.d, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1); :: and ::1 keep their own ranges.
      return p.slice(0, 6).every((part) => part === 0) && v6.range() === 'unicast' ? [ipv4From(p[6]!, p[7]!)] : [];
  }
}
