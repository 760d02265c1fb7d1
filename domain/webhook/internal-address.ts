import { parseIpAddress, type IpAddress } from '../shared/ip-address';

/**
 * Is an IP address inside a network a webhook must never reach (spec: Events, URL rules 2 and 3)?
 * Used at registration for literal IPs and again at connection time on every resolved address, so a
 * public name that later resolves inside the network (DNS rebinding) is still refused.
 *
 * An allow-list: only an ordinary global unicast address passes. Every special-purpose range the address library
 * knows (loopback, private, link-local, carrier-grade NAT, multicast, unique-local, unspecified, broadcast,
 * documentation and other reserved blocks...) is internal, and an IPv6 address that carries an IPv4 one (IPv4-mapped,
 * 6to4, Teredo, NAT64) is judged by what it carries, so `2002:7f00:1::1` is loopback and `2002:a9fe:a9fe::1` the
 * cloud metadata address.
 */
export function isInternalAddress(ip: string): boolean {
  const address = parseIpAddress(ip);
  // Not an address we can read (a zone id, a typo): refuse rather than guess.
  return address === null || isInternal(address);
}

/** Loopback, also as IPv4-mapped (`::ffff:127.0.0.1`): what a localhost URL may reach in a local sandbox. */
export function isLoopbackAddress(ip: string): boolean {
  return parseIpAddress(ip)?.range === 'loopback';
}

/** True when the string is a literal IPv4 or IPv6 address (brackets allowed for IPv6). */
export function isIpLiteral(host: string): boolean {
  return parseIpAddress(stripBrackets(host)) !== null;
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isInternal(address: IpAddress): boolean {
  if (address.embeddedIPv4.length > 0) return address.embeddedIPv4.some(isInternal);
  return address.range !== 'unicast';
}
