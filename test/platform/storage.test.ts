import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { localDiskStorage } from '../../src/platform/storage/storage.js';
import { fillDisk, mountTmpfs, tmpfsProblem, unmount } from '../support/tmpfs.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('local disk storage', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'baas-storage-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const storage = localDiskStorage(root);

  it('serves the bytes and size it measured even if the file is deleted once opened', async () => {
    const bytes = Buffer.alloc(256 * 1024, 7);
    const key = await storage.put(bytes);
    const opened = await storage.open(key);
    // What the admin download saw between its size check and its read, had the file vanished.
    unlinkSync(path.join(root, key));
    assert.equal(opened.size, bytes.length);
    assert.deepEqual(await readAll(opened.stream), bytes);
  });

  it('reports the size of the bytes it streams when the file is replaced once opened', async () => {
    const key = await storage.put(Buffer.from('first version'));
    const opened = await storage.open(key);
    const file = path.join(root, key);
    unlinkSync(file);
    writeFileSync(file, 'a much longer second version of the file');
    const streamed = await readAll(opened.stream);
    assert.equal(streamed.toString(), 'first version');
    assert.equal(opened.size, streamed.length);
  });

  it('rejects open() for a missing file instead of handing out a stream that fails later', async () => {
    const key = await storage.put(Buffer.from('gone'));
    await storage.delete(key);
    await assert.rejects(storage.open(key), { code: 'ENOENT' });
  });
});

describe('local disk storage on a full disk', { skip: tmpfsProblem }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'baas-storage-full-'));
  let mounted = false;
  after(() => {
    if (mounted) unmount(root);
    rmSync(root, { recursive: true, force: true });
  });

  it('fails with ENOSPC leaving no partial file, and stores again once space is freed', async () => {
    mountTmpfs(root, 2 * 1024 * 1024);
    mounted = true;
    const storage = localDiskStorage(root);
    const filler = path.join(root, 'filler');
    fillDisk(filler, 128 * 1024);
    const bytes = Buffer.alloc(512 * 1024, 1);
    await assert.rejects(storage.put(bytes), { code: 'ENOSPC' });
    const left = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => name !== 'filler');
    assert.ok(
      left.every((name) => !name.includes('.')),
      `only (empty) key directories may stay: ${left.join(', ')}`,
    );

    rmSync(filler);
    const key = await storage.put(bytes);
    assert.deepEqual(await readAll((await storage.open(key)).stream), bytes);
  });
});
