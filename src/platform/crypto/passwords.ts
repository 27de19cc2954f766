import argon2 from 'argon2';

/** OWASP's argon2id profile: 19 MiB, two passes, one lane. The work runs on libuv's thread pool. */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, OPTIONS);

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/**
 * Verified against when the e-mail is unknown, so an unknown account costs the same argon2id work as a
 * wrong password and the two cannot be told apart by timing.
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= argon2.hash('timing-equaliser-not-a-password', OPTIONS);
  return dummyHash;
}
