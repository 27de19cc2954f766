import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * DATA_DIR holds the SQLite database, uploaded identity documents, OTP e-mails and the development
 * key: none of it is for other local users. Modes asked for at creation are umask-proof (a umask
 * only removes bits); what already exists looser, from an earlier version or by hand, is tightened.
 */

/** chmod to `mode` when the path allows more and this process owns it (only the owner may chmod). */
export function tightenMode(target: string, mode: number): void {
  if (!existsSync(target)) return;
  const stats = statSync(target);
  if ((stats.mode & 0o777 & ~mode) === 0) return;
  if (process.getuid && stats.uid !== process.getuid()) return;
  chmodSync(target, mode);
}

/** A directory only its owner may enter (0700). */
export function ensurePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tightenMode(dir, 0o700);
}

/**
 * An empty file created 0600 when missing, else tightened to 0600. An existing file is never
 * opened here: closing any descriptor of a SQLite database drops the process's locks on it.
 */
export function ensurePrivateFile(file: string): void {
  if (!existsSync(file)) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  tightenMode(file, 0o600);
}
