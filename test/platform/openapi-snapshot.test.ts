import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { useApp } from '../support/app.js';
import { OPENAPI } from '../support/paths.js';

const SNAPSHOT = new URL('../__snapshots__/openapi.json', import.meta.url);

/**
 * The published API description, checked in: any change to paths, schemas, status or error codes
 * shows up in review as a diff of this file. `UPDATE_SNAPSHOTS=1 npm test -- test/platform/openapi-snapshot.test.ts`
 * rewrites it after an intended change.
 */
describe('OpenAPI document snapshot', () => {
  const app = useApp('sqlite');

  it('matches the checked-in document', async () => {
    const response = await fetch(`${app.t.url}${OPENAPI}`);
    assert.equal(response.status, 200);
    const current = `${JSON.stringify(await response.json(), null, 2)}\n`;
    if (process.env['UPDATE_SNAPSHOTS'] === '1') writeFileSync(SNAPSHOT, current);
    assert.ok(existsSync(SNAPSHOT), 'no snapshot yet: run with UPDATE_SNAPSHOTS=1 and commit it');
    assert.equal(
      current,
      readFileSync(SNAPSHOT, 'utf8'),
      'the API changed: review it, then UPDATE_SNAPSHOTS=1',
    );
  });
});
