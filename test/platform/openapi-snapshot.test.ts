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
/**
 * Where two versions first differ, in a few lines. Not assert.equal: its diff of two documents of
 * thousands of lines took the node:test runner hours to report (the run hung, CI timed out).
 */
function firstDifference(stored: string, current: string): string {
  const a = stored.split('\n');
  const b = current.split('\n');
  const show = (lines: string[]) =>
    lines
      .slice(line, line + 3)
      .map((text) => (text.length > 160 ? `${text.slice(0, 160)}…` : text))
      .join(' ⏎ ');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line += 1;
  return [
    `the API changed at line ${line + 1}: review it, then UPDATE_SNAPSHOTS=1`,
    `  checked in: ${show(a) || '(end of file)'}`,
    `  served:     ${show(b) || '(end of file)'}`,
  ].join('\n');
}

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
      const stored = readFileSync(published, 'utf8');
      if (current !== stored) assert.fail(`openapi/${file}: ${firstDifference(stored, current)}`);
    });
  }
});
