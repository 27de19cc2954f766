import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmdirSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { type AppContext, createTestDatabase, type DialectName, startApp, type TestDatabase } from './app.js';
import { SmtpSink } from './smtp-sink.js';

/** A small real file system, so that a full disk is the kernel's ENOSPC rather than a stub's. */

export function mountTmpfs(dir: string, bytes: number): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
}

/** Unmounts `dir`; if something still holds a file there, detaches it anyway and reports that. */
export function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch (error) {
    execFileSync('umount', ['--lazy', dir], { stdio: 'pipe' });
    throw error;
  }
}

/** Why a tmpfs cannot be mounted here (node:test prints it as the skip reason), or false. */
function probe(): string | false {
  const dir = mkdtempSync(path.join(tmpdir(), 'baas-tmpfs-probe-'));
  try {
    mountTmpfs(dir, 64 * 1024);
    unmount(dir);
    return false;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    return `skipped: cannot mount a tmpfs (${stderr || (error as Error).message}); needs root or CAP_SYS_ADMIN`;
  } finally {
    rmdirSync(dir);
  }
}

export const tmpfsProblem: string | false = probe();

export const freeBytes = (dir: string): number => {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
};

/** Writes `file` until the file system holding it has at most `leave` bytes free. */
export function fillDisk(file: string, leave = 0): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const fd = openSync(file, 'a');
  try {
    for (let free = freeBytes(path.dirname(file)); free > leave; free = freeBytes(path.dirname(file))) {
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, free - leave));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
        throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

export interface TmpfsAppContext extends AppContext {
  /** The tmpfs: DATA_DIR itself or the folder of it that was asked for. */
  mount: string;
}

/**
 * As useApp, with DATA_DIR (`folder` ''), or a folder of it, on a tmpfs of `bytes`: mounted before
 * the app starts, unmounted in after() whether or not the tests passed.
 */
export function useAppOnTmpfs(dialect: DialectName, folder: string, bytes: number): TmpfsAppContext {
  const context = { dialect } as TmpfsAppContext;
  let database: TestDatabase | undefined;
  let mounted = false;
  let close: (() => Promise<void>) | undefined;
  before(async () => {
    context.sink = await new SmtpSink().start();
    database = await createTestDatabase(dialect);
    context.mount = path.join(database.dataDir, folder);
    mkdirSync(context.mount, { recursive: true, mode: 0o700 });
    mountTmpfs(context.mount, bytes);
    mounted = true;
    const started = await startApp(database, { env: { SMTP_URL: context.sink.url } });
    const handle = database.open();
    close = async () => {
      await started.stop();
      await handle.close();
    };
    context.t = { ...started, db: handle.db, database, close };
  });
  after(async () => {
    try {
      await close?.();
    } finally {
      try {
        if (mounted) unmount(context.mount);
      } finally {
        await database?.drop();
        await context.sink?.stop();
      }
    }
  });
  return context;
}
