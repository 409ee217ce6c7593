import net from 'node:net';
import { badRequest } from '../../../kernel/index.ts';

export const MAX_ADDRESSES = 100;

/** Parses `a.b.c.d`, `a.b.c.d/n`, `v6` or `v6/n`; undefined when malformed. */
function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const version = net.isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (bits === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return { address, prefix: Number(bits), family };
}

/** 400 naming the first entry that is not an IPv4/IPv6 address or CIDR block. */
export function assertAddresses(list: readonly string[]): void {
  list.forEach((text, i) => {
    if (!parseCidr(text))
      throw badRequest(
        `"${text}" is not an IPv4 or IPv6 address or CIDR block`,
        `allowedAddresses.${i}`,
        'INVALID_ADDRESS',
      );
  });
}

/**
 * The networks a client may call from. An empty list allows every address. IPv4 callers that reach
 * a dual-stack socket as `::ffff:a.b.c.d` are checked as the IPv4 address they are.
 */
export class AddressAllowList {
  private readonly list: net.BlockList | undefined;

  constructor(entries: readonly string[]) {
    if (entries.length === 0) return;
    this.list = new net.BlockList();
    for (const text of entries) {
      const cidr = parseCidr(text);
      if (cidr) this.list.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
  }

  allows(ip: string): boolean {
    if (!this.list) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    const address = mapped ? mapped[1] : ip;
    const version = net.isIP(address);
    if (version === 0) return false;
    return this.list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  }
}
