import { createHash, randomBytes, randomInt } from 'node:crypto';

/** 256 random bits, base64url: the bearer secret of sessions and API keys. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Six decimal digits from the CSPRNG, leading zeros kept. */
export const randomOtp = (): string => randomInt(0, 1_000_000).toString().padStart(6, '0');

/** Time-ordered, globally unique identifier (UUIDv7 layout) for app-made primary keys. */
export function newId(): string {
  const bytes = randomBytes(16);
  const now = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[i] = Number((now >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
