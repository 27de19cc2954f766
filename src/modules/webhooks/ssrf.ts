import { isIP } from 'node:net';
import type { Environment } from '../../platform/environment.js';

/**
 * Which destinations a webhook may reach:
 * - `public-only`: public unicast addresses only (live everywhere, sandbox in production);
 * - `no-link-local`: anything but link-local and cloud metadata (sandbox outside production);
 * - `any`: no guard (WEBHOOK_ALLOW_PRIVATE, development and tests).
 */
export type AddressPolicy = 'public-only' | 'no-link-local' | 'any';

/**
 * The SSRF guard (docs/partner-guide.md, "Webhooks"; docs/decisions.md, "Webhooks"). Live endpoints
 * must be public. Sandbox endpoints may be private (a developer's tunnel or local receiver) but never
 * link-local, where cloud metadata services live; in production sandbox is public-only too, or it
 * would let any sign-up probe the operator's network.
 */
export function addressPolicy(
  environment: Environment,
  guard: { allowPrivate: boolean; production: boolean },
): AddressPolicy {
  if (guard.allowPrivate) return 'any';
  return environment === 'live' || guard.production ? 'public-only' : 'no-link-local';
}

interface Prefix {
  bytes: Uint8Array;
  bits: number;
}

type Ip = { family: 4 | 6; bytes: Uint8Array };

function ipv4Bytes(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** `text` must already be a valid IPv6 address (isIP === 6) without brackets or zone. */
function ipv6Bytes(text: string): Uint8Array {
  let hex = text;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(hex);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    hex = `${hex.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = hex.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const before = groups(head);
  const after = groups(tail);
  const all =
    tail === undefined ? before : [...before, ...Array(8 - before.length - after.length).fill('0'), ...after];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** An IP literal as bytes, or undefined for anything else (names, garbage). Brackets and zones are dropped. */
function parse(address: string): Ip | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const version = isIP(bare);
  if (version === 4) return { family: 4, bytes: ipv4Bytes(bare) };
  if (version === 6) return { family: 6, bytes: ipv6Bytes(bare) };
  return undefined;
}

function prefixes(list: ReadonlyArray<readonly [string, number]>): Prefix[] {
  return list.map(([network, bits]) => ({ bytes: parse(network)!.bytes, bits }));
}

function within(bytes: Uint8Array, prefix: Prefix): boolean {
  if (bytes.length !== prefix.bytes.length) return false;
  for (let bit = 0; bit < prefix.bits; bit += 8) {
    const width = Math.min(8, prefix.bits - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    if (((bytes[bit / 8]! ^ prefix.bytes[bit / 8]!) & mask) !== 0) return false;
  }
  return true;
}

const inAny = (bytes: Uint8Array, list: Prefix[]) => list.some((prefix) => within(bytes, prefix));

/** IPv4 ranges that are not public unicast (IANA special-purpose registry, minus globally reachable anycast). */
const PRIVATE_V4 = prefixes([
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relay anycast: forwards into IPv6 on the relay's side
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]);

/**
 * IPv6 outside global unicast (2000::/3) is unallocated or special-purpose and never public; inside
 * it, these ranges are special too. The ones that embed an IPv4 address (mapped, compatible,
 * translated, NAT64, 6to4, Teredo) are refused whatever they embed: they are ways to reach IPv4.
 */
const GLOBAL_UNICAST_V6 = prefixes([['2000::', 3]]);
const PRIVATE_V6 = prefixes([
  ['::', 96], // IPv4-compatible, with :: and ::1
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local (fd00:ec2::254 is AWS metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
]);

/** Refused under every guarded policy: link-local and cloud metadata services. */
const LINK_LOCAL_V4 = prefixes([
  ['169.254.0.0', 16],
  ['100.100.100.200', 32], // Alibaba Cloud metadata (inside carrier-grade NAT space)
]);
const LINK_LOCAL_V6 = prefixes([
  ['fe80::', 10],
  ['fd00:ec2::254', 128], // AWS metadata over IPv6
]);

const NAT64_LOCAL = prefixes([['64:ff9b:1::', 48]]);
/** Forms that carry an IPv4 address in their last 32 bits. */
const LAST_32 = prefixes([
  ['::', 96],
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
]);
const SIX_TO_FOUR = prefixes([['2002::', 16]]);
const TEREDO = prefixes([['2001::', 32]]);

/**
 * The IPv4 addresses an IPv6 address carries (empty when none), or 'unknown' when it carries one at
 * a place that cannot be told from the address alone: local-use NAT64 may use any RFC 6052 prefix length.
 * ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d) carry one under any prefix.
 */
export function embeddedIPv4(address: string): string[] | 'unknown' {
  const ip = parse(address);
  if (ip?.family !== 6) return [];
  const { bytes } = ip;
  const v4 = (from: number, xor = 0) =>
    Array.from(bytes.subarray(from, from + 4), (byte) => byte ^ xor).join('.');
  if (inAny(bytes, NAT64_LOCAL)) return 'unknown';
  if (inAny(bytes, LAST_32)) return [v4(12)];
  if (inAny(bytes, SIX_TO_FOUR)) return [v4(2)];
  // Teredo: the server's address, then the client's with every bit inverted.
  if (inAny(bytes, TEREDO)) return [v4(4), v4(12, 0xff)];
  if ((bytes[8] === 0 || bytes[8] === 2) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe) {
    return [v4(12)];
  }
  return [];
}

/** True for anything but a public unicast IP address (names and garbage included: fail closed). */
export function isPrivateAddress(address: string): boolean {
  const ip = parse(address);
  if (!ip) return true;
  if (ip.family === 4) return inAny(ip.bytes, PRIVATE_V4);
  if (!inAny(ip.bytes, GLOBAL_UNICAST_V6) || inAny(ip.bytes, PRIVATE_V6)) return true;
  const embedded = embeddedIPv4(address);
  return embedded === 'unknown' || embedded.some(isPrivateAddress);
}

/** True for link-local and metadata addresses, also when embedded in IPv6 (and for anything unparsable). */
export function isLinkLocalAddress(address: string): boolean {
  const ip = parse(address);
  if (!ip) return true;
  if (ip.family === 4) return inAny(ip.bytes, LINK_LOCAL_V4);
  if (inAny(ip.bytes, LINK_LOCAL_V6)) return true;
  const embedded = embeddedIPv4(address);
  return embedded === 'unknown' || embedded.some(isLinkLocalAddress);
}

export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  if (policy === 'any') return true;
  if (policy === 'no-link-local') return !isLinkLocalAddress(address);
  return !isPrivateAddress(address);
}
