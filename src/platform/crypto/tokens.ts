import { createHash, randomBytes, randomFillSync, randomInt } from 'node:crypto';

/** 256 random bits, base64url: the bearer secret of sessions and API keys. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/**
 * An API key: sk_<environment>_ + 43 base64url characters (256 random bits). A bearer credential is an
 * API key when it has this whole form; a session token (43 characters) never does, even the one in
 * 262,144 that starts with "sk_".
 */
export const API_KEY_FORMAT = /^sk_(sandbox|live)_([A-Za-z0-9_-]{43})$/;

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Six decimal digits from the CSPRNG, leading zeros kept. */
export const randomOtp = (): string => randomInt(0, 1_000_000).toString().padStart(6, '0');

let lastMs = 0;
let sequence = 0;

/**
 * Random bytes for ids, drawn from the CSPRNG 4 KiB at a time (as Node's randomUUID does): one call
 * per id cost more than the rest of the id. Each id takes fresh bytes; none are used twice.
 */
const RANDOM_POOL_BYTES = 4096;
const randomPool = Buffer.alloc(RANDOM_POOL_BYTES);
let randomOffset = RANDOM_POOL_BYTES;

function pooledRandom16(): Buffer {
  if (randomOffset + 16 > RANDOM_POOL_BYTES) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  randomOffset += 16;
  return randomPool.subarray(randomOffset - 16, randomOffset);
}

/**
 * Time-ordered, globally unique identifier (UUIDv7 layout) for app-made primary keys. Within a
 * process ids strictly increase, also inside one millisecond (a 12-bit counter in rand_a, as RFC 9562
 * method 1 allows), so ordering by id is ordering by creation and ids serve as keyset cursors.
 */
export function newId(): string {
  const bytes = pooledRandom16();
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs += 1;
    sequence = 0;
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
