import { hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Purpose-bound keys derived from DATA_ENCRYPTION_KEY, so one leaked subkey exposes one use only. */
export interface KeyRing {
  /** AES-256-GCM key for personal data (BVNs) and webhook secrets. */
  readonly encryption: Buffer;
  /** HMAC key for equality lookups of encrypted values (BVN hash). */
  readonly lookup: Buffer;
  /** HMAC key for one-time passwords. */
  readonly otp: Buffer;
  /** HMAC key that authenticates pagination cursors. */
  readonly cursor: Buffer;
  /** HMAC key that derives a browser session's anti-forgery token from its session token. */
  readonly csrf: Buffer;
}

function derive(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `baas:${purpose}:v1`, 32));
}

export function createKeyRing(masterKeyBase64: string): KeyRing {
  const master = Buffer.from(masterKeyBase64, 'base64');
  if (master.length !== 32) throw new Error('the data encryption key must be 32 bytes');
  return {
    encryption: derive(master, 'encryption'),
    lookup: derive(master, 'lookup'),
    otp: derive(master, 'otp'),
    cursor: derive(master, 'cursor'),
    csrf: derive(master, 'csrf'),
  };
}

/**
 * Development convenience: without DATA_ENCRYPTION_KEY a key is generated once and kept under
 * DATA_DIR, so encrypted data stays readable across restarts. Production refuses to start without one.
 */
export function loadOrCreateDevKey(dataDir: string): string {
  const file = path.join(dataDir, 'data-encryption.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
