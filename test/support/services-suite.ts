import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext, TestApp } from './app.js';
import { createPartner, type Partner } from './factories.js';
import { approvePartner, completeOnboarding, form, PNG_BYTES, representativeFields } from './onboarding.js';
import { API_KEYS, ENVIRONMENT, LOGIN, REPRESENTATIVE, SUBMIT } from './paths.js';

export type Environment = 'sandbox' | 'live';

export const uniqueSuffix = (): string => randomBytes(4).toString('hex');

export async function login(t: Pick<TestApp, 'api'>, email: string, password: string): Promise<string> {
  const response = await t.api.post(LOGIN, { email, password });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.data.environment, 'sandbox');
  return response.body.data.token as string;
}

export async function switchEnvironment(
  t: Pick<TestApp, 'api'>,
  token: string,
  environment: Environment,
): Promise<void> {
  const response = await t.api.put(ENVIRONMENT, { environment }, { token });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.data.environment, environment);
}

export interface CreatedKey {
  id: string;
  name: string;
  environment: Environment;
  key: string;
  last4: string;
  created_at: string;
}

export async function createApiKey(
  t: Pick<TestApp, 'api'>,
  token: string,
  environment: Environment,
  name = `key-${uniqueSuffix()}`,
): Promise<CreatedKey> {
  const response = await t.api.post(API_KEYS, { name, environment }, { token });
  assert.equal(response.status, 201, response.text);
  return response.body.data as CreatedKey;
}

/** Saves the compliance representative (multipart, PNG id_file) so that team members may be added. */
export async function addRepresentative(t: Pick<TestApp, 'api'>, token: string): Promise<void> {
  const response = await t.api.request('POST', REPRESENTATIVE, {
    token,
    body: form(representativeFields(), { id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' } }),
  });
  assert.equal(response.status, 201, response.text);
}

/** A verified, logged-in partner (sandbox session) with a sandbox API key. */
export interface SandboxPartner {
  partner: Partner;
  token: string;
  key: string;
  keyId: string;
}

export async function sandboxPartner(
  suite: AppContext,
  overrides: Record<string, unknown> = {},
): Promise<SandboxPartner> {
  const partner = await createPartner(suite.t, suite.sink, overrides);
  const key = await createApiKey(suite.t, partner.token, 'sandbox');
  return { partner, token: partner.token, key: key.key, keyId: key.id };
}

/** An approved (active) partner with a session and an API key in each environment. */
export interface LivePartner {
  partner: Partner;
  sandboxToken: string;
  liveToken: string;
  sandboxKey: string;
  sandboxKeyId: string;
  liveKey: string;
  liveKeyId: string;
}

export async function approvedPartner(
  suite: AppContext,
  overrides: Record<string, unknown> = {},
): Promise<LivePartner> {
  const { t, sink } = suite;
  const partner = await createPartner(t, sink, overrides);
  await completeOnboarding(t, partner.token);
  const submitted = await t.api.post(SUBMIT, undefined, { token: partner.token });
  assert.equal(submitted.status, 200, submitted.text);
  await approvePartner(t, partner.companyId);
  const liveToken = await login(t, partner.email, partner.password);
  await switchEnvironment(t, liveToken, 'live');
  const sandboxKey = await createApiKey(t, partner.token, 'sandbox');
  const liveKey = await createApiKey(t, partner.token, 'live');
  return {
    partner,
    sandboxToken: partner.token,
    liveToken,
    sandboxKey: sandboxKey.key,
    sandboxKeyId: sandboxKey.id,
    liveKey: liveKey.key,
    liveKeyId: liveKey.id,
  };
}

/** A valid team-member body (CONTRACT 4.2, interface document 4.6). */
export function memberBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Chidi',
    last_name: 'Okafor',
    email: `chidi-${uniqueSuffix()}@acme.ng`,
    phone: '+2348020000000',
    dob: '1990-06-01',
    gender: 'male',
    designation: 'compliance_officer',
    bvn: '22987654321',
    id_type: 'drivers_license',
    id_file_url: 'https://files.acme.ng/ids/chidi.pdf',
    address: '4 Broad Street, Lagos',
    ...overrides,
  };
}

/** A valid virtual-account body (CONTRACT 4.3). */
export function customerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Tunde',
    last_name: 'Bakare',
    email: `tunde-${uniqueSuffix()}@example.com`,
    phone: '+2348090000000',
    ...overrides,
  };
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
