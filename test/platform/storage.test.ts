import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { localDiskStorage } from '../../src/platform/storage/storage.js';

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
