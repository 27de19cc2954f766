import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { AppContext, TestApp } from './app.js';
import { form, PNG_BYTES, representativeFields } from './factories.js';
import { REPRESENTATIVE } from './paths.js';

/** Saves the compliance representative (multipart, PNG id_file) so that team members may be added. */
export async function addRepresentative(t: Pick<TestApp, 'api'>, token: string): Promise<void> {
  const response = await t.api.request('POST', REPRESENTATIVE, {
    token,
    body: form(representativeFields(), { id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' } }),
  });
  assert.equal(response.status, 201, response.text);
}

/**
 * The app's tables. On PostgreSQL, only its own schema is read: Kysely's introspection lists every
 * schema's tables and fails when another test file drops its schema meanwhile.
 */
async function appTables({ t, dialect }: AppContext): Promise<Array<{ name: string }>> {
  if (dialect === 'sqlite') return t.db.introspection.getTables();
  const own = sql<{ name: string }>`select tablename as name from pg_catalog.pg_tables
    where schemaname = current_schema() and tablename not in ('kysely_migration', 'kysely_migration_lock')`;
  return (await own.execute(t.db)).rows;
}

/**
 * Every `table.column` of this app's database whose value contains `needle`: used to prove that a
 * secret (an API key, a whole BVN) is stored nowhere in clear.
 */
export async function columnsContaining(suite: AppContext, needle: string): Promise<string[]> {
  const { db } = suite.t;
  const tables = await appTables(suite);
  assert.ok(
    tables.some((table) => table.name === 'api_keys'),
    'introspection found the app tables',
  );
  const found: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (value !== null && String(value).includes(needle)) found.push(`${table.name}.${column}`);
      }
    }
  }
  return [...new Set(found)];
}

/** Resolves once Date.now() has moved on, so ids made by consecutive requests sort in creation order. */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() === start) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Walks every page of a list endpoint with the given limit; returns the pages. */
export async function allPages(
  t: Pick<TestApp, 'api'>,
  url: string,
  token: string,
  limit: number,
): Promise<Array<Array<Record<string, unknown>>>> {
  const pages: Array<Array<Record<string, unknown>>> = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await t.api.get(`${url}${query}`, { token });
    assert.equal(response.status, 200, response.text);
    const items = response.body.data.items as Array<Record<string, unknown>>;
    assert.ok(items.length <= limit, `page of ${items.length} over limit ${limit}`);
    pages.push(items);
    cursor = response.body.data.next_cursor as string | null;
    if (cursor === null) return pages;
    assert.equal(typeof cursor, 'string');
    assert.equal(items.length, limit, 'a page before the last one is full');
  }
  throw new Error('pagination did not end');
}
