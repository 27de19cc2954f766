import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ensurePrivateDirectory } from './private-paths.js';

/**
 * Where uploaded files live. Keys are generated here, never taken from a client's file name.
 * The local-disk implementation keeps files under DATA_DIR/files, outside any served path; an
 * S3-compatible implementation only has to provide these three operations.
 */
export interface FileStorage {
  /**
   * Stores the bytes under a new generated key and returns the key. On failure (ENOSPC when the
   * disk is full) nothing is left behind and the error is the file system's.
   */
  put(bytes: Buffer): Promise<string>;
  open(key: string): Promise<{ stream: Readable; size: number }>;
  delete(key: string): Promise<void>;
}

const KEY = /^[0-9a-f]{2}\/[0-9a-f-]{36}$/;

export function localDiskStorage(root: string): FileStorage {
  ensurePrivateDirectory(root);
  const fileOf = (key: string) => {
    if (!KEY.test(key)) throw new Error('invalid storage key');
    return path.join(root, key);
  };
  return {
    async put(bytes) {
      const id = randomUUID();
      const key = `${id.slice(0, 2)}/${id}`;
      const file = fileOf(key);
      // Write then rename: a crash never leaves a half-written file under a live key.
      const temporary = `${file}.partial`;
      try {
        await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        await writeFile(temporary, bytes, { mode: 0o600, flag: 'wx' });
        await rename(temporary, file);
      } catch (error) {
        // A full disk (ENOSPC) leaves what was written so far: removing it gives the space back.
        await rm(temporary, { force: true }).catch(() => undefined);
        throw error;
      }
      return key;
    },
    async open(key) {
      // Size and bytes come from one open descriptor: a file deleted or replaced after this point
      // is still read whole, and the stream cannot fail to open after the headers went out.
      const handle = await open(fileOf(key), 'r');
      try {
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}
