import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { useApp } from '../support/app.js';
import { OPENAPI, OPERATOR_OPENAPI } from '../support/paths.js';

/**
 * The published API descriptions, checked in under openapi/: any change to paths, schemas, status or
 * error codes shows up in review as a diff, the SDK's types are generated from openapi/partner.json
 * and CI lints both files. `UPDATE_SNAPSHOTS=1 npm test -- test/platform/openapi-snapshot.test.ts`
 * rewrites them after an intended change.
 */
describe('published OpenAPI documents', () => {
  const app = useApp('sqlite');

  for (const [file, path] of [
    ['partner.json', OPENAPI],
    ['operator.json', OPERATOR_OPENAPI],
  ] as const) {
    it(`serves openapi/${file} exactly as checked in`, async () => {
      const published = new URL(`../../openapi/${file}`, import.meta.url);
      const response = await fetch(`${app.t.url}${path}`);
      assert.equal(response.status, 200);
      const current = `${JSON.stringify(await response.json(), null, 2)}\n`;
      if (process.env['UPDATE_SNAPSHOTS'] === '1') writeFileSync(published, current);
      assert.ok(existsSync(published), `no openapi/${file} yet: run with UPDATE_SNAPSHOTS=1 and commit it`);
      assert.equal(
        current,
        readFileSync(published, 'utf8'),
        'the API changed: review it, then UPDATE_SNAPSHOTS=1',
      );
    });
  }
});
