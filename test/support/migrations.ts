import assert from 'node:assert/strict';
import { migrations } from '../../src/platform/db/migrations/index.js';

/**
 * The migration that runs just before `name`: a test of a migration's backfill starts the schema
 * there, whatever migrations land after it.
 */
export function migrationBefore(name: string): string {
  const names = Object.keys(migrations).sort();
  const at = names.indexOf(name);
  assert.ok(at > 0, `${name} is a migration with one before it`);
  return names[at - 1]!;
}
