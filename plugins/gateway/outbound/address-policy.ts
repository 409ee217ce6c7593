import ipaddr from 'ipaddr.js';

/**
 * What an address is, for the outbound rule. `metadata`: a cloud metadata service outside the
 * link-local range (Alibaba's 100.100.100.200, AWS's IPv6 fd00:ec2::254), refused like link-local.
 */
export type AddressClass = 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved' | 'public';

/** Least to most restricted: an address carrying another one gets the stricter class of the two. */
const STRICTNESS: readonly AddressClass[] = ['public', 'private', 'loopback', 'link-local', 'metadata', 'reserved'];

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const table = (entries: [AddressClass, string[]][]): [AddressClass, Range[]][] =>
  entries.map(([kind, cidrs]) => [kind, cidrs.map((c) => ipaddr.parseCIDR(c))]);

// First match wins. 0.0.0.0/8 reaches the local host on Linux, so it counts as loopback.
const IPV4 = table([
  ['loopback', ['127.0.0.0/8', '0.0.0.0/8']],
  ['metadata', ['100.100.100.200/32']],
  ['link-local', ['169.254.0.0/16']],
  // Never a unicast destination: multicast, broadcast, IETF protocol assignments, documentation, 6to4 relay.
  [
    'reserved',
    [
      '224.0.0.0/4',
      '240.0.0.0/4',
      '192.0.0.0/24',
      '192.0.2.0/24',
      '192.88.99.0/24',
      '198.51.100.0/24',
      '203.0.113.0/24',
    ],
  ],
  // RFC 1918, carrier-grade NAT, benchmarking networks.
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.18.0.0/15']],
]);
// `::` and `::1` are judged as the IPv4 they carry (0.0.0.0 and 0.0.0.1: loopback), like all of ::/96.
const IPV6 = table([
  ['metadata', ['fd00:ec2::254/128']],
  ['link-local', ['fe80::/10']],
  // Multicast, documentation (2001:db8::/32, 3fff::/20), discard-only, ORCHID.
  ['reserved', ['ff00::/8', '2001:db8::/32', '3fff::/20', '100::/64', '2001:10::/28', '2001:20::/28']],
  // Unique local, deprecated site-local, benchmarking, local-use NAT64 (RFC 8215).
  ['private', ['fc00::/7', 'fec0::/10', '2001:2::/48', '64:ff9b:1::/48']],
]);

function ownClass(address: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  const rows = address.kind() === 'ipv4' ? IPV4 : IPV6;
  for (const [kind, ranges] of rows) {
    if (ranges.some((range) => range[0].kind() === address.kind() && address.match(range))) return kind;
  }
  return 'public';
}

const v4 = (b: number[], at: number, xor = 0) =>
  new ipaddr.IPv4([b[at]! ^ xor, b[at + 1]! ^ xor, b[at + 2]! ^ xor, b[at + 3]! ^ xor]);
const zero = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by every translation form that can deliver to them:
 * IPv4-compatible `::a.b.c.d` (all of ::/96), IPv4-mapped `::ffff:a.b.c.d`, SIIT `::ffff:0:a.b.c.d`,
 * NAT64 `64:ff9b::/96` and a /96 of the local-use `64:ff9b:1::/48` (itself private), 6to4
 * `2002:AABB:CCDD::/48`, Teredo (server, and the client's inverted bits) and ISATAP (`...:5efe:a.b.c.d`).
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = address.toByteArray();
  const found: ipaddr.IPv4[] = [];
  if (zero(b, 0, 12)) found.push(v4(b, 12));
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) found.push(v4(b, 12));
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) found.push(v4(b, 12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zero(b, 4, 12)) found.push(v4(b, 12));
    if (b[4] === 0 && b[5] === 1) found.push(v4(b, 12));
  }
  if (b[0] === 0x20 && b[1] === 0x02) found.push(v4(b, 2));
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) found.push(v4(b, 4), v4(b, 12, 0xff));
  if ((b[8] === 0x00 || b[8] === 0x02) && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) found.push(v4(b, 12));
  return found;
}

/** The class of a literal IP address (IPv4 or IPv6 in any spelling, without brackets); not an address: reserved. */
export function classifyAddress(address: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'reserved';
  }
  const classes = [ownClass(parsed)];
  if (parsed.kind() === 'ipv6') classes.push(...embeddedIpv4(parsed as ipaddr.IPv6).map(ownClass));
  return classes.reduce((a, b) => (STRICTNESS.indexOf(b) > STRICTNESS.indexOf(a) ? b : a));
}

export interface AddressPolicyOptions {
  /** Loopback is refused (NODE_ENV=production) unless the host is in `allowHosts`. */
  refuseLoopback: boolean;
  /** Private ranges are open unless OUTBOUND_ALLOW_PRIVATE=false. */
  allowPrivate: boolean;
  /** Host names (or literal addresses) exempt from the loopback, private and link-local rules. */
  allowHosts: readonly string[];
}

/**
 * The outbound rule applied to every address the gateway is about to connect to, after DNS resolution.
 * Link-local (cloud metadata at 169.254.169.254 among them) is refused everywhere unless the host is
 * allow-listed: no integration needs it and it is the classic server-side request forgery target.
 */
export class AddressPolicy {
  private readonly allowHosts: Set<string>;

  constructor(private readonly opts: AddressPolicyOptions) {
    this.allowHosts = new Set(opts.allowHosts.map((h) => normaliseHost(h)));
  }

  /** The reason `address` (reached through `host`) is refused, or undefined when it is allowed. */
  refusal(host: string, address: string): string | undefined {
    const kind = classifyAddress(address);
    if (kind === 'public') return undefined;
    if (kind === 'reserved') return `${address} is in a reserved range (multicast, documentation, ...), never called`;
    if (this.allowHosts.has(normaliseHost(host))) return undefined;
    if (kind === 'loopback' && this.opts.refuseLoopback)
      return `${host} resolves to the loopback address ${address}; name it in OUTBOUND_ALLOW_HOSTS to allow it`;
    if (kind === 'private' && !this.opts.allowPrivate)
      return `${host} resolves to the private address ${address} and OUTBOUND_ALLOW_PRIVATE=false`;
    if (kind === 'link-local')
      return `${host} resolves to the link-local address ${address}; name it in OUTBOUND_ALLOW_HOSTS to allow it`;
    if (kind === 'metadata')
      return `${host} resolves to the cloud metadata address ${address}; name it in OUTBOUND_ALLOW_HOSTS to allow it`;
    return undefined;
  }
}

/** Lower case, IPv6 brackets and a trailing dot removed. */
export function normaliseHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}
