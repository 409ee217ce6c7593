import net from 'node:net';

/** Where a reverse proxy of this installation can sit: loopback, private and link-local networks. */
const PROXY_NETWORKS = new net.BlockList();
for (const [address, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
] as const) {
  PROXY_NETWORKS.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PROXY_NETWORKS.addSubnet(address, prefix, 'ipv6');

function isProxyNetwork(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PROXY_NETWORKS.check(mapped[1], 'ipv4');
  return PROXY_NETWORKS.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY. A hop count trusts exactly that many proxies counted from this
 * process, so the client address is the X-Forwarded-For entry the outermost trusted proxy appended; the
 * entries left of it are whatever the client sent and are never used. The immediate peer must be on a
 * loopback or private network, so a client that reaches the process directly cannot pose as a proxy.
 * A list of addresses/CIDRs trusts exactly those proxies.
 */
export function trustProxyOption(
  setting: false | number | string[],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (setting === false || Array.isArray(setting)) return setting;
  const hops = setting;
  return (address, hop) => hop < hops && (hop > 0 || isProxyNetwork(address));
}
