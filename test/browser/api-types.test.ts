import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('web API types', () => {
  it('are what openapi-typescript generates from the checked-in OpenAPI documents', () => {
    const result = spawnSync(process.execPath, ['web/scripts/generate-api.mjs', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  });
});
