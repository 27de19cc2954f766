import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never reach: loopback, private, link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254 included), carrier-grade NAT, multicast, reserved and
 * documentation ranges, in both families.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** Link-local (metadata services) is refused in every environment. */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

function normalized(address: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const version = isIP(bare);
  if (version === 0) return undefined;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address: bare, family: version === 4 ? 'ipv4' : 'ipv6' };
}

export function isPrivateAddress(address: string): boolean {
  const ip = normalized(address);
  return ip === undefined || PRIVATE.check(ip.address, ip.family);
}

export function isLinkLocalAddress(address: string): boolean {
  const ip = normalized(address);
  return ip === undefined || LINK_LOCAL.check(ip.address, ip.family);
}

export type AddressPolicy = 'public-only' | 'no-link-local' | 'any';

export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  if (policy === 'any') return true;
  if (policy === 'no-link-local') return !isLinkLocalAddress(address);
  return !isPrivateAddress(address);
}
