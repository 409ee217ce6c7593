import { BlockList, isIP } from 'node:net';

/** Why an address is refused, or undefined when it may be connected to. */
export type AddressClass = 'loopback' | 'private' | 'link-local' | 'reserved' | 'public';

const ranges = (entries: [string, number, 'ipv4' | 'ipv6'][]) => {
  const list = new BlockList();
  for (const [net, prefix, family] of entries) list.addSubnet(net, prefix, family);
  return list;
};

// 0.0.0.0/8 and `::` reach the local host on Linux, so they count as loopback.
const LOOPBACK = ranges([
  ['127.0.0.0', 8, 'ipv4'],
  ['0.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['::', 128, 'ipv6'],
]);
const LINK_LOCAL = ranges([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
const PRIVATE = ranges([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['198.18.0.0', 15, 'ipv4'], // benchmarking networks
  ['fc00::', 7, 'ipv6'], // unique local
  ['fec0::', 10, 'ipv6'], // deprecated site-local
]);
// Never a unicast destination: multicast, broadcast, reserved, documentation.
const RESERVED = ranges([
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['ff00::', 8, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
]);

/** `::ffff:a.b.c.d` (IPv4-mapped, also in hex form) and NAT64 `64:ff9b::a.b.c.d` are judged as the IPv4 address they carry. */
export function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::ffff:0:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return undefined;
}

/** The class of a literal IP address (IPv4 or IPv6, without brackets). */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  const [ip, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  if (LOOPBACK.check(ip, type)) return 'loopback';
  if (LINK_LOCAL.check(ip, type)) return 'link-local';
  if (RESERVED.check(ip, type)) return 'reserved';
  if (PRIVATE.check(ip, type)) return 'private';
  return 'public';
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
    if (kind === 'reserved') return `${address} is not a unicast address`;
    if (this.allowHosts.has(normaliseHost(host))) return undefined;
    if (kind === 'loopback' && this.opts.refuseLoopback)
      return `${host} resolves to the loopback address ${address}; name it in OUTBOUND_ALLOW_HOSTS to allow it`;
    if (kind === 'private' && !this.opts.allowPrivate)
      return `${host} resolves to the private address ${address} and OUTBOUND_ALLOW_PRIVATE=false`;
    if (kind === 'link-local')
      return `${host} resolves to the link-local address ${address}; name it in OUTBOUND_ALLOW_HOSTS to allow it`;
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
