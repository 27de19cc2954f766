import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { DocumentType } from '../../src/modules/onboarding/onboarding.schemas.js';
import type { Database } from '../../src/platform/db/schema.js';
import type { AppContext, TestApp } from './app.js';
import type { Environment } from './partners.js';

/** What the app stored, read straight from its database: a test app's `db`, or another handle on it. */
export interface HasDb {
  db: Kysely<Database>;
}

/** The partner's audit events, oldest first; only those of `action` if given. */
export function auditActions({ db }: HasDb, partnerId: number, action?: string) {
  let query = db.selectFrom('audit_events').selectAll().where('partner_id', '=', partnerId);
  if (action) query = query.where('action', '=', action);
  return query.orderBy('id').execute();
}

/** The ids of the partner's virtual accounts (both environments), oldest first. */
export async function virtualAccountIds({ db }: HasDb, partnerId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('virtual_accounts')
    .select('id')
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The partner's sessions. */
export function sessionsOf({ db }: HasDb, partnerId: number) {
  return db.selectFrom('sessions').selectAll().where('partner_id', '=', partnerId).execute();
}

/** The partner's outbox events, oldest first; only those of `environment` if given. */
export function outboxEvents({ db }: HasDb, partnerId: number, environment?: Environment) {
  let query = db
    .selectFrom('outbox_events')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('created_at')
    .orderBy('id');
  if (environment) query = query.where('environment', '=', environment);
  return query.execute();
}

/**
 * The delivery attempts of one event whose outcome is recorded, in order (an attempt is written
 * before its request is sent: `{ inFlight: true }` includes those still in flight or never completed).
 */
export function attemptsOf({ db }: HasDb, eventId: string, options: { inFlight?: boolean } = {}) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('event_id', '=', eventId)
    .$if(!options.inFlight, (query) => query.where('in_flight_until', 'is', null))
    .orderBy('attempt')
    .execute();
}

export function kycChecks({ db }: HasDb, partnerId: number) {
  return db.selectFrom('kyc_checks').selectAll().where('partner_id', '=', partnerId).orderBy('id').execute();
}

/** The partner's current documents (of one type if given). */
export function currentDocuments({ db }: HasDb, partnerId: number, documentType?: DocumentType) {
  let query = db
    .selectFrom('documents')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('superseded_at', 'is', null);
  if (documentType) query = query.where('document_type', '=', documentType);
  return query.execute();
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
export async function columnsContaining(app: AppContext, needle: string): Promise<string[]> {
  const tables = await appTables(app);
  assert.ok(
    tables.some((table) => table.name === 'api_keys'),
    'introspection found the app tables',
  );
  const found: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(
      app.t.db,
    );
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (value !== null && String(value).includes(needle)) found.push(`${table.name}.${column}`);
      }
    }
  }
  return [...new Set(found)];
}

/** Every file stored under DATA_DIR/files, as paths relative to that folder. */
export function storedFiles(t: Pick<TestApp, 'dataDir'>): string[] {
  const root = path.join(t.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((entry) =>
    statSync(path.join(root, entry)).isFile(),
  );
}

export const readStoredFile = (t: Pick<TestApp, 'dataDir'>, key: string): Buffer =>
  readFileSync(path.join(t.dataDir, 'files', key));
