import type { KeyRing } from './keys.js';
import { encrypt, keyedHash } from './secret-box.js';

/** How a BVN is stored: encrypted, with a keyed hash for equality and the last four digits for display. */
export interface SealedBvn {
  bvn_encrypted: string;
  bvn_hash: string;
  bvn_last4: string;
}

export function sealBvn(keys: KeyRing, bvn: string): SealedBvn {
  return {
    bvn_encrypted: encrypt(keys.encryption, bvn),
    bvn_hash: bvnHash(keys, bvn),
    bvn_last4: bvn.slice(-4),
  };
}

export const bvnHash = (keys: KeyRing, bvn: string): string => keyedHash(keys.lookup, `bvn:${bvn}`);

/** The only form in which a BVN leaves the service: `*******1234`. */
export const maskBvn = (last4: string): string => `*******${last4}`;
