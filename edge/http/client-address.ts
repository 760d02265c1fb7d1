/**
 * The one place the edge decides who a request comes from (contract.md section 8). Everything keyed by address
 * (per-address rate limits, security incidents, audit entries) reads ApiRequest.ip, which comes from here.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The reverse proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES); empty believes no header. */
export class TrustedProxies {
  static readonly NONE = new TrustedProxies([]);

  private constructor(private readonly ranges: ReadonlyArray<[Address, number]>) {}

  /**
   * Parses CIDRs (`10.0.0.0/8`, `fd00::/8`); a bare address means that address alone. Throws an Error naming
   * the first entry that is neither, so start-up refuses a list that would silently trust nothing (or too much).
   */
  static parse(entries: readonly string[]): TrustedProxies {
    return new TrustedProxies(
      entries.map((entry) => {
        const cidr = entry.includes('/') ? entry : `${entry}/${ipaddr.IPv6.isValid(entry) ? 128 : 32}`;
        if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(cidr) && !ipaddr.IPv6.isValidCIDR(cidr)) {
          throw new Error(`"${entry}" is not an IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8`);
        }
        const [network, bits] = ipaddr.parseCIDR(cidr);
        // An IPv4-mapped IPv6 range is the IPv4 range: peers are compared in their IPv4 form.
        if (network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
          return [(network as ipaddr.IPv6).toIPv4Address(), bits - 96] as [Address, number];
        }
        return [network, bits] as [Address, number];
      }),
    );
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  includes(address: Address): boolean {
    return this.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }
}

/**
 * A textual address in one canonical form (IPv4-mapped IPv6 as IPv4, IPv6 compressed), or null when it is not an
 * address. IPv4 must be four decimal parts: the library's legacy forms (`127.1`, `0x7f.0.0.1`) would let one client
 * spell itself many ways.
 */
export function parseAddress(text: string): Address | null {
  const value = text.trim();
  if (ipaddr.IPv4.isValidFourPartDecimal(value)) return ipaddr.IPv4.parse(value);
  if (!value.includes(':') || !ipaddr.IPv6.isValid(value)) return null;
  const address = ipaddr.IPv6.parse(value);
  return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/**
 * The client address: with no trusted proxy, the socket's peer; otherwise walk the chain peer <- X-Forwarded-For
 * from the right and take the first address not in a trusted range. Every hop up to it was added by a proxy we
 * trust; anything further left was written by the client and is not believed. An entry that is not an address
 * stops the walk at the last trusted hop (a client must not invent a fresh address per request), and a chain of
 * trusted hops only ends at its left-most address.
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  const peerAddress = parseAddress(peer);
  if (!peerAddress) return peer || 'unknown';
  if (trusted.isEmpty || !trusted.includes(peerAddress) || !forwardedFor) return peerAddress.toString();
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').filter((hop) => hop.trim() !== '');
  let nearest = peerAddress;
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = parseAddress(hops[index]!);
    if (!hop) break;
    nearest = hop;
    if (!trusted.includes(hop)) break;
  }
  return nearest.toString();
}
