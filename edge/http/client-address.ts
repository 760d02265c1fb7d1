/**
 * The one place the edge decides who a request comes from (contract.md section 8). Everything keyed by address
 * (per-address rate limits, security incidents, audit entries) reads ApiRequest.ip, which comes from here.
 */
import { ipRangeContains, parseIpAddress, parseIpRange, type IpAddress, type IpRange } from '../../domain/shared/ip-address';

/** The reverse proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES); empty believes no header. */
export class TrustedProxies {
  static readonly NONE = new TrustedProxies([]);

  private constructor(private readonly ranges: readonly IpRange[]) {}

  /**
   * Parses CIDRs (`10.0.0.0/8`, `fd00::/8`); a bare address means that address alone. Throws an Error naming
   * the first entry that is neither, so start-up refuses a list that would silently trust nothing (or too much).
   */
  static parse(entries: readonly string[]): TrustedProxies {
    return new TrustedProxies(
      entries.map((entry) => {
        // An IPv4-mapped IPv6 range comes back as the IPv4 range: peers are compared in their IPv4 form.
        const range = parseIpRange(entry);
        if (!range) throw new Error(`"${entry}" is not an IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8`);
        return range;
      }),
    );
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  includes(address: IpAddress): boolean {
    return this.ranges.some((range) => ipRangeContains(range, address));
  }
}

/**
 * A textual address in one canonical form (IPv4-mapped IPv6 as IPv4, IPv6 compressed), or null when it is not an
 * address. IPv4 must be four decimal parts: legacy forms (`127.1`, `0x7f.0.0.1`) would let one client spell itself
 * many ways. Spaces around an X-Forwarded-For entry are the header's, not the address's.
 */
export function parseAddress(text: string): IpAddress | null {
  return parseIpAddress(text.trim());
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
  if (trusted.isEmpty || !trusted.includes(peerAddress) || !forwardedFor) return peerAddress.canonical;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').filter((hop) => hop.trim() !== '');
  let nearest = peerAddress;
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = parseAddress(hops[index]!);
    if (!hop) break;
    nearest = hop;
    if (!trusted.includes(hop)) break;
  }
  return nearest.canonical;
}
