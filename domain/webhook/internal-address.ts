/**
 * Is an IP address inside a network a webhook must never reach (spec: Events, URL rules 2 and 3)?
 * Used at registration for literal IPs and again at connection time on every resolved address, so a
 * public name that later resolves inside the network (DNS rebinding) is still refused.
 * Pure string arithmetic: no `node:net` so the domain stays I/O-free.
 */
export function isInternalAddress(ip: string): boolean {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return isInternalIPv4(v4);
  const v6 = parseIPv6(ip);
  if (v6 !== null) return isInternalIPv6(v6);
  // Not an IP at all: refuse rather than guess.
  return true;
}

/** True when the string is a literal IPv4 or IPv6 address (brackets allowed for IPv6). */
export function isIpLiteral(host: string): boolean {
  return parseIPv4(host) !== null || parseIPv6(stripBrackets(host)) !== null;
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Dotted-quad only; URL parsing (WHATWG) already normalizes octal/hex/short forms to dotted-quad. */
export function parseIPv4(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

const V4_BLOCKS: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
];
const V4_RANGES = V4_BLOCKS.map(([base, bits]) => {
  const size = 2 ** (32 - bits);
  const start = parseIPv4(base)!;
  return { start, end: start + size - 1 };
});

function isInternalIPv4(value: number): boolean {
  return V4_RANGES.some((r) => value >= r.start && value <= r.end);
}

/** Parses IPv6 into 8 16-bit groups; accepts `::` compression, an embedded IPv4 tail and a zone id. */
export function parseIPv6(input: string): number[] | null {
  let ip = input;
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  if (!ip.includes(':')) return null;
  const lastColon = ip.lastIndexOf(':');
  const maybeV4 = ip.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    const v4 = parseIPv4(maybeV4);
    if (v4 === null) return null;
    ip = `${ip.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const doubleColon = ip.indexOf('::');
  if (doubleColon !== ip.lastIndexOf('::')) return null;
  const parseGroups = (s: string): number[] | null => {
    if (s === '') return [];
    const groups: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      groups.push(parseInt(g, 16));
    }
    return groups;
  };
  if (doubleColon >= 0) {
    const head = parseGroups(ip.slice(0, doubleColon));
    const rest = parseGroups(ip.slice(doubleColon + 2));
    if (head === null || rest === null) return null;
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return null;
    return [...head, ...new Array<number>(fill).fill(0), ...rest];
  }
  const all = parseGroups(ip);
  return all !== null && all.length === 8 ? all : null;
}

function isInternalIPv6(g: number[]): boolean {
  const allZeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (allZeroUpTo(8)) return true; // :: unspecified
  if (allZeroUpTo(7) && g[7] === 1) return true; // ::1 loopback
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judge the embedded IPv4.
  if (allZeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return isInternalIPv4(g[6] * 65536 + g[7]);
  // NAT64 well-known prefix 64:ff9b::/96 embeds IPv4 too.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isInternalIPv4(g[6] * 65536 + g[7]);
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return true; // 100::/64 discard
  return false;
}
