import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pino from 'pino';
import * as accounts from '../src/modules/accounts/accounts.repository.js';
import * as onboarding from '../src/modules/onboarding/onboarding.repository.js';
import { insertAuditEvent } from '../src/platform/audit/audit.repository.js';
import { newId, randomToken, sha256 } from '../src/platform/crypto/tokens.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrator.js';
import { loggerOptions } from '../src/platform/logger.js';

// What the pieces of the app's hot paths cost on this machine, one at a time, on a SQLite database
// like the app's (file, WAL):  npx tsx bench/pieces.ts
// Each line is the mean over many sequential calls; compare them with 1e6 / (req/s) of the bench.

const ITERATIONS = Number(process.env['PIECES_ITERATIONS'] ?? 20_000);

async function time(label: string, task: () => unknown, iterations = ITERATIONS): Promise<number> {
  for (let i = 0; i < Math.min(2_000, iterations); i++) await task();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await task();
  const micros = ((performance.now() - started) * 1000) / iterations;
  process.stdout.write(`  ${micros.toFixed(1).padStart(8)} µs  ${label}\n`);
  return micros;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'baas-pieces-'));
const url = `sqlite:${path.join(dir, 'baas.sqlite')}`;
const { db, close } = openDatabase(url);
await migrateToLatest(db);
/** The same file through better-sqlite3 directly, for the floor of each query. */
const { default: Database } = await import('better-sqlite3');
const direct: SQLite.Database = new Database(path.join(dir, 'baas.sqlite'));

const now = Date.now();
const partnerIds: number[] = [];
for (let i = 0; i < 50; i++) {
  partnerIds.push(
    await accounts.insertPartner(db, {
      email: `pieces-${i}@example.com`,
      business_name: 'Pieces Ltd',
      legal_business_name: 'Pieces Ltd',
      phone: '+234 803 123 4567',
      password_hash: 'x',
      onboarding_status: 'in_progress',
      verified_at: now,
      created_at: now,
      updated_at: now,
    }),
  );
}
const tokens: string[] = [];
for (let i = 0; i < 2_000; i++) {
  const token = randomToken();
  tokens.push(token);
  await accounts.insertSession(db, {
    id: newId(),
    token_hash: sha256(token),
    partner_id: partnerIds[i % partnerIds.length]!,
    environment: 'sandbox',
    created_at: now,
    expires_at: now + 7_200_000,
  });
}
let turn = 0;
const nextToken = () => tokens[turn++ % tokens.length]!;
const nextPartner = () => partnerIds[turn++ % partnerIds.length]!;

process.stdout.write('\nGET business-info: authentication (session lookup)\n');
await time('sha256(token)', () => sha256(nextToken()));
const sessionQuery = () =>
  db
    .selectFrom('sessions')
    .innerJoin('partners', 'partners.id', 'sessions.partner_id')
    .select([
      'sessions.id',
      'sessions.partner_id',
      'sessions.environment',
      'sessions.expires_at',
      'partners.onboarding_status',
    ])
    .where('sessions.token_hash', '=', 'x');
const sessionSql = sessionQuery().compile().sql;
await time('Kysely: build + compile the session query', () => sessionQuery().compile());
await time('better-sqlite3: prepare(session sql)', () => direct.prepare(sessionSql));
const sessionStatement = direct.prepare(sessionSql);
await time('better-sqlite3: prepared statement .get()', () => sessionStatement.get(sha256(nextToken())));
await time('repository findSessionByTokenHash (Kysely, as the app runs it)', () =>
  accounts.findSessionByTokenHash(db, sha256(nextToken())),
);

process.stdout.write('\nGET business-info: the profile (three queries)\n');
await time('repository: partner + representative + documents, Promise.all (as the service)', () => {
  const id = nextPartner();
  return Promise.all([
    onboarding.findPartnerProfile(db, id),
    onboarding.findRepresentative(db, id),
    onboarding.listCurrentDocuments(db, id),
  ]);
});
await time('repository: the same three, one after the other', async () => {
  const id = nextPartner();
  await onboarding.findPartnerProfile(db, id);
  await onboarding.findRepresentative(db, id);
  await onboarding.listCurrentDocuments(db, id);
});
const compiled = [
  db.selectFrom('partners').selectAll().where('id', '=', 0).compile(),
  db.selectFrom('representatives').selectAll().where('partner_id', '=', 0).compile(),
  db
    .selectFrom('documents')
    .selectAll()
    .where('partner_id', '=', 0)
    .where('superseded_at', 'is', null)
    .orderBy('uploaded_at')
    .orderBy('id')
    .compile(),
].map((query) => direct.prepare(query.sql));
await time('better-sqlite3: the same three with cached statements', () => {
  const id = nextPartner();
  return compiled.map((statement) => statement.all(id));
});

process.stdout.write('\nAccess log line (one per request)\n');
const logFile = path.join(dir, 'log.ndjson');
const line = {
  method: 'GET',
  url: '/baas/api/v1/client/onboarding/business-info',
  status: 200,
  ms: 1.2,
  ip: '127.0.0.1',
};
const reqId = { reqId: 'b6f1a7a2-4c1f-4f55-9d1e-1e0d1f0c1a2b' };
const syncFile = () => pino.destination({ dest: logFile, sync: true });
const appLogger = pino(loggerOptions('info'), syncFile()).child(reqId);
await time("pino with the app's options (redaction, ISO time), sync write", () =>
  appLogger.info(line, 'request'),
);
const bareLogger = pino({ level: 'info' }, syncFile()).child(reqId);
await time('bare pino (no redaction, epoch time), sync write', () => bareLogger.info(line, 'request'));
const bufferedLogger = pino(
  loggerOptions('info'),
  pino.destination({ dest: logFile, sync: false, minLength: 4096 }),
).child(reqId);
await time("pino with the app's options, buffered writes (minLength 4096)", () =>
  bufferedLogger.info(line, 'request'),
);

process.stdout.write('\nPOST login: the database work around the argon2id verification\n');
await time(
  'reserveLoginAttempt (upsert) + findPartnerByEmail',
  async () => {
    const email = `pieces-${turn++ % 50}@example.com`;
    await accounts.reserveLoginAttempt(db, email, Date.now(), 15 * 60_000);
    await accounts.findPartnerByEmail(db, email);
  },
  5_000,
);
await time(
  'transaction: insert session + clear attempts + audit event',
  () => {
    const id = nextPartner();
    return db.transaction().execute(async (trx) => {
      const sessionId = newId();
      await accounts.insertSession(trx, {
        id: sessionId,
        token_hash: sha256(randomToken()),
        partner_id: id,
        environment: 'sandbox',
        created_at: Date.now(),
        expires_at: Date.now() + 7_200_000,
      });
      await accounts.clearLoginAttempts(trx, `pieces-${id}@example.com`);
      await insertAuditEvent(
        trx,
        {
          partnerId: id,
          actorType: 'partner',
          actorId: id,
          action: 'account.login',
          targetType: 'session',
          targetId: sessionId,
        },
        { requestId: 'r', ip: '127.0.0.1' },
        Date.now(),
      );
    });
  },
  5_000,
);
const checkpointStarted = performance.now();
await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
process.stdout.write(
  `  ${((performance.now() - checkpointStarted) * 1000).toFixed(1).padStart(8)} µs  one WAL checkpoint after those writes\n`,
);

direct.close();
await close();
rmSync(dir, { recursive: true, force: true });
