import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

/**
 * OWASP's argon2id profile: 19 MiB, two passes, one lane. @node-rs/argon2 (Rust, off the event loop)
 * verifies about twice as fast as the `argon2` package with the same parameters; both write and read
 * the same PHC strings, so hashes made by either verify with the other.
 */
/** Algorithm.Argon2id: the package's const enum cannot be imported under verbatimModuleSyntax. */
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * argon2id runs on libuv's thread pool, at most one computation per core at a time: more would only
 * compete with the event loop for CPU (health checks and every other request slow down) while holding
 * 19 MiB each. `npm start` sizes the pool to the cores (UV_THREADPOOL_SIZE), so the pool itself keeps
 * to that, and twice as many are handed to it: a thread that finishes a hash takes the next one at
 * once instead of idling until the event loop, busy with other requests, gets round to starting it
 * (2 cores, 4 clients: 120 → 141 logins a second, as many as the bench's raw twin). With a pool larger
 * than the cores (libuv's default is 4), no more than one a core is handed over.
 */
const CORES = Math.max(1, availableParallelism());
const handOver = (poolSize: number) => (poolSize <= CORES ? 2 * poolSize : CORES);
let maxConcurrent = handOver(4);

/** Sizes the hand-over to the thread pool libuv started with (config.UV_THREADPOOL_SIZE; unset: 4). */
export function useThreadPool(size = 4): void {
  maxConcurrent = handOver(size);
}
let running = 0;
const waiting: Array<() => void> = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= maxConcurrent) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/**
 * NIST SP 800-63B 5.1.1.2: passwords are Unicode-normalised (NFKC) before hashing, so the same
 * password typed on two keyboards (composed or decomposed é, full-width digits) is the same password.
 */
export const normalizePassword = (password: string): string => password.normalize('NFKC');

export const hashPassword = (password: string): Promise<string> =>
  limited(() => hash(normalizePassword(password), OPTIONS));

async function verifyExactly(phc: string, password: string): Promise<boolean> {
  try {
    return await limited(() => verify(phc, password));
  } catch {
    return false;
  }
}

/**
 * Hashes made before normalisation was introduced hold the password as typed: when the normalised
 * form does not match and differs from it, the password as sent is tried too.
 */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  const normalized = normalizePassword(password);
  if (await verifyExactly(phc, normalized)) return true;
  return normalized !== password && verifyExactly(phc, password);
}

/**
 * Verified against when the e-mail is unknown, so an unknown account costs the same argon2id work as a
 * wrong password and the two cannot be told apart by timing.
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('timing-equaliser-not-a-password');
  return dummyHash;
}
