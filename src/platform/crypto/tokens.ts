import { createHash, randomBytes, randomInt } from 'node:crypto';

/** 256 random bits, base64url: the bearer secret of sessions and API keys. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Six decimal digits from the CSPRNG, leading zeros kept. */
export const randomOtp = (): string => randomInt(0, 1_000_000).toString().padStart(6, '0');

let lastMs = 0;
let sequence = 0;

/**
 * Time-ordered, globally unique identifier (UUIDv7 layout) for app-made primary keys. Within a
 * process ids strictly increase, also inside one millisecond (a 12-bit counter in rand_a, as RFC 9562
 * method 1 allows), so ordering by id is ordering by creation and ids serve as keyset cursors.
 */
export function newId(): string {
  const bytes = randomBytes(16);
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs += 1;
    sequence = 0;
  }
  const ms = BigInt(lastMs);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
