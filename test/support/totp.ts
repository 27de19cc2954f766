import { createHmac } from 'node:crypto';

/*
 * An authenticator app of the tests' own: RFC 4226 HOTP / RFC 6238 TOTP on node:crypto (HMAC-SHA1,
 * 30-second steps, 6 digits), independent of the otpauth package the server uses.
 */

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TOTP_STEP_MS = 30_000;

/** RFC 4648 base32 as authenticator apps read it: case, padding and spaces do not matter. */
export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.toUpperCase().replace(/[\s=]/g, '')) {
    const index = BASE32_ALPHABET.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** RFC 4226 5.3: HMAC-SHA1 of the 8-byte counter, dynamic truncation, `digits` decimal digits. */
export function hotp(key: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary =
    ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238: the code of the 30-second step that `timeMs` falls in. */
export const totpWithKey = (key: Buffer, timeMs: number, digits = 6): string =>
  hotp(key, Math.floor(timeMs / TOTP_STEP_MS), digits);

/** The code an authenticator app shows for a base32 secret at `timeMs` (RFC 6238). */
export const totp = (base32Secret: string, timeMs: number): string =>
  totpWithKey(base32Decode(base32Secret), timeMs);

/** A 6-digit code that is none of the codes of the steps around `timeMs` (the server's window). */
export function notTheCode(secret: string, timeMs: number): string {
  const near = new Set([-2, -1, 0, 1, 2].map((step) => totp(secret, timeMs + step * TOTP_STEP_MS)));
  for (let candidate = 0; ; candidate++) {
    const code = String((Number(totp(secret, timeMs)) + 500_000 + candidate) % 1_000_000).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

/**
 * Moves a test clock to one second into the next 30-second step: the server accepts each step's
 * code once, so every sign-in of one operator needs a step of its own, as a person waits for the
 * app's next code.
 */
export function nextTotpStep(clock: { now(): number; advance(ms: number): void }): void {
  const now = clock.now();
  clock.advance((Math.floor(now / TOTP_STEP_MS) + 1) * TOTP_STEP_MS + 1000 - now);
}
