import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Request } from 'autocannon';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { ConfigSchema } from '../src/config.js';
import { nuban } from '../src/modules/virtual-accounts/nuban.js';
import { hashPassword } from '../src/platform/crypto/passwords.js';
import { sign } from '../src/platform/crypto/standard-webhooks.js';
import { newId, randomToken, sha256 } from '../src/platform/crypto/tokens.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrator.js';
import type { Database } from '../src/platform/db/schema.js';
import { BENEFICIARY, CONNECTOR_SECRET, LIVE_BANK_CODE, PATHS, SANDBOX_BANK_CODE } from './raw.js';

// What both benchmarks (run.ts: throughput; instructions.ts: instruction counts) share: the compiled
// servers, the seeded database and the app's configuration.

export const ROOT = path.resolve(import.meta.dirname, '..');
export const OUT = path.join(ROOT, '.bench');
export const SERVER = path.join(OUT, 'build', 'bench', 'server.js');
export const PG_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const PASSWORD = 'Bench-Ledger-Password-1';
const PARTNERS = 50;

/** Production's settings, less the rate limit; no mail leaves (no scenario sends one). */
export const APP_CONFIG = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  SMTP_URL: 'smtp://127.0.0.1:9',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 0x5a).toString('base64'),
  RATE_LIMIT_IP_PER_MINUTE: '0',
  PUBLIC_URL: 'https://bench.invalid',
  BANK_CONNECTOR_URL: 'https://connector.bench.invalid',
  BANK_CONNECTOR_SECRET: CONNECTOR_SECRET,
  BANK_CODE_LIVE: LIVE_BANK_CODE,
  // The twin does only a transfer's acceptance; the worker would then send each one (its leases,
  // status rows and the sandbox bank's answers) on the app's side alone, in the measured process.
  TRANSFER_WORKER: 'false',
};

/**
 * A seeded partner: its login, session, sandbox API key, one live virtual account's number, one funded
 * sandbox account's number and a name enquiry of the beneficiary its transfers go to.
 */
export type Partner = {
  email: string;
  token: string;
  apiKey: string;
  liveAccount: string;
  sandboxAccount: string;
  nameEnquiryRef: string;
};
/** What each seeded sandbox account holds (kobo): no run spends it. */
const SANDBOX_BALANCE_KOBO = 1e15;

const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });
const post = (route: string, headers: object, body: object): Request => ({
  method: 'POST',
  path: route,
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
/** NIBSS session ids of this run: its start time (13 digits) and a count (17): 30 digits, unique. */
const SESSION_PREFIX = String(Date.now());
let sessions = 0;

/**
 * A credit notification to the partner's live account, signed by the connector as it is sent: each
 * with its own NIBSS session id (so each is a credit, not a duplicate) and a current timestamp.
 */
function creditNotification(p: Partner): Request {
  const template: Request = { method: 'POST', path: PATHS.credit };
  template.setupRequest = (request) => {
    const session = `${SESSION_PREFIX}${String(++sessions).padStart(17, '0')}`;
    const body = JSON.stringify({
      session_id: session,
      account_number: p.liveAccount,
      amount_kobo: 150050,
      narration: 'Invoice 118',
      originator: {
        account_name: 'CHIOMA ADEBAYO',
        account_number: '0123456789',
        bank_code: '000013',
        bank_name: 'GTBank',
      },
      transaction_at: new Date().toISOString(),
    });
    const id = `msg_${randomUUID()}`;
    const timestamp = Math.floor(Date.now() / 1000);
    request.body = body;
    request.headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign([CONNECTOR_SECRET], id, timestamp, body),
    };
    return request;
  };
  return template;
}

/** Transfer references of this run: unique across its loads and servers. */
const REFERENCE_PREFIX = `bench-${Date.now()}`;
let references = 0;

/** A transfer out of the partner's sandbox account to the beneficiary it enquired, a new reference each. */
function transfer(p: Partner): Request {
  const template: Request = { method: 'POST', path: PATHS.transfer };
  template.setupRequest = (request) => {
    request.headers = { ...auth(p.apiKey), 'content-type': 'application/json' };
    request.body = JSON.stringify({
      source_account_number: p.sandboxAccount,
      amount: 1500.5,
      bank_code: BENEFICIARY.bank_code,
      account_number: BENEFICIARY.account_number,
      narration: 'Payout 118',
      reference: `${REFERENCE_PREFIX}-${++references}`,
      name_enquiry_ref: p.nameEnquiryRef,
    });
    return request;
  };
  return template;
}

const customer = { first_name: 'Ada', last_name: 'Eze', email: 'c-[<id>]@x.ng', phone: '+2348090000000' };

/** The loads: a request per partner (`[<id>]` in a body becomes a unique id). */
export const SCENARIOS = [
  {
    name: 'business-info',
    title: 'GET business-info (session)',
    target: 0.7,
    connections: 10,
    request: (p: Partner): Request => ({ path: PATHS.profile, headers: auth(p.token) }),
  },
  {
    name: 'virtual-account-create',
    title: 'POST virtual-account/create (API key)',
    target: 0.7,
    connections: 10,
    request: (p: Partner) => post(PATHS.create, auth(p.apiKey), customer),
  },
  {
    name: 'credit-notification',
    title: 'POST bank/credit-notifications (connector signature)',
    target: 0.7,
    connections: 10,
    request: creditNotification,
  },
  {
    name: 'transfer-create',
    title: 'POST services/transfers (API key)',
    target: 0.7,
    connections: 10,
    request: transfer,
  },
  {
    name: 'login',
    title: 'POST login (argon2id)',
    target: 0.9,
    // Twice the cores: argon2id always has work queued, on both servers alike.
    connections: 2 * os.availableParallelism(),
    request: (p: Partner) => post(PATHS.login, {}, { email: p.email, password: PASSWORD }),
  },
];

const START_SCRIPT = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start;

/** The node flags of package.json's start script (e.g. the young generation's cap). */
export const START_FLAGS: string[] = START_SCRIPT.match(/--[\w-]+(=\S+)?/g) ?? [];

/**
 * The variables the start script sets before `exec node` (the thread pool's size), as sh expands them
 * here: the app is measured with the environment `npm start` gives it.
 */
export const START_ENV: Record<string, string> = (() => {
  const assignments = START_SCRIPT.split(/\bexec\b/)[0] ?? '';
  const names = [...assignments.matchAll(/(?:^|\s)([A-Za-z_]\w*)=/g)].map((match) => match[1]!);
  if (names.length === 0) return {};
  const env = execFileSync('sh', ['-c', `${assignments} exec env`], { encoding: 'utf8' });
  const values = new Map(
    env.split('\n').map((line) => [line.split('=', 1)[0]!, line.slice(line.indexOf('=') + 1)]),
  );
  return Object.fromEntries(names.map((name) => [name, values.get(name) ?? '']));
})();

/** How a bench starts a server: the app with `npm start`'s node flags and environment, the twin plainly. */
export function startOf(side: 'app' | 'raw'): { flags: string[]; env: Record<string, string> } {
  return side === 'app' ? { flags: START_FLAGS, env: START_ENV } : { flags: [], env: {} };
}

/** server.ts and its imports compiled into .bench/build, run with plain node as in production. */
export function compileServers(): void {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'bench/tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
}

/** Partners with a session, a sandbox API key, a representative and documents, hashed as the app hashes. */
async function seed(db: Kysely<Database>): Promise<Partner[]> {
  const now = Date.now();
  const passwordHash = await hashPassword(PASSWORD);
  const partners: Partner[] = [];
  for (let i = 0; i < PARTNERS; i++) {
    const [email, token, secret] = [`bench-${i}@example.com`, randomToken(), randomToken()];
    const apiKey = `sk_sandbox_${secret}`;
    const { rows } = await sql<{
      id: number;
    }>`insert into partners (email, business_name, legal_business_name,
        phone, password_hash, verified_at, business_type, rc_number, address, website, onboarding_status,
        created_at, updated_at)
      values (${email}, ${`Bench Payments ${i}`}, ${`Bench Payments ${i} Ltd`}, '+2348031234567', ${passwordHash},
        ${now}, 'limited_liability', ${`RC${100000 + i}`}, '1 Marina, Lagos', 'https://bench.example.com',
        'in_progress', ${now}, ${now}) returning id`.execute(db);
    const id = rows[0]!.id;
    const userId = newId();
    await sql`insert into partner_users (id, partner_id, email, name, password_hash, role, created_by_user_id,
        created_at, updated_at, last_login_at, removed_at)
      values (${userId}, ${id}, ${email}, ${`bench-${i}`}, ${passwordHash}, 'owner', null, ${now}, ${now}, null,
        null)`.execute(db);
    await sql`insert into sessions (id, token_hash, partner_id, user_id, environment, created_at, expires_at)
      values (${newId()}, ${sha256(token)}, ${id}, ${userId}, 'sandbox', ${now}, ${now + 86_400_000})`.execute(
      db,
    );
    await sql`insert into api_keys (id, partner_id, name, environment, lookup_prefix, key_hash, last4, created_at)
      values (${newId()}, ${id}, 'bench', 'sandbox', ${secret.slice(0, 12)}, ${sha256(apiKey)},
        ${apiKey.slice(-4)}, ${now})`.execute(db);
    await sql`insert into representatives (partner_id, first_name, last_name, email, phone, dob, gender,
        designation, id_type, address, bvn_encrypted, bvn_hash, bvn_last4, kyc_status, kyc_message, kyc_provider,
        kyc_checked_at, bvn_verified_at, created_at, updated_at)
      values (${id}, 'Ada', 'Obi', ${`rep-${i}@example.com`}, '+2348031234568', '1990-01-01', 'female', 'director',
        'national_id', '2 Marina, Lagos', 'sealed', ${`bvn-${i}`}, '1234', 'passed', 'Verified.', 'sandbox',
        ${now}, ${now}, ${now}, ${now})`.execute(db);
    // Three current documents; the first CAC certificate was replaced by the second.
    const documents = ['cac_certificate', 'cac_certificate', 'memart', 'valid_id'].map(
      (type, k) => sql`(${newId()}, ${id}, ${type}, 'pending_review', ${`https://files.example.com/${k}.pdf`},
        ${now - 3 + k}, ${k === 0 ? now : null})`,
    );
    await sql`insert into documents (id, partner_id, document_type, status, file_url, uploaded_at, superseded_at)
      values ${sql.join(documents)}`.execute(db);
    // One live account each, for the bank's credit notifications.
    const liveAccount = nuban(LIVE_BANK_CODE, String(100_000_000 + i));
    await sql`insert into virtual_accounts (id, partner_id, environment, account_number, bank_code, bank_name,
        account_name, currency, status, first_name, last_name, customer_email, phone, balance_kobo, created_at)
      values (${newId()}, ${id}, 'live', ${liveAccount}, ${LIVE_BANK_CODE}, 'BaaS Partner Bank',
        ${`Bench Payments ${i}/Ada Eze`}, 'NGN', 'active', 'Ada', 'Eze', ${`live-${i}@example.com`}, '+2348090000000',
        0, ${now})`.execute(db);
    // A funded sandbox account, its balance explained by one credit entry, for transfers out.
    const [sandboxId, sandboxAccount] = [newId(), nuban(SANDBOX_BANK_CODE, String(200_000_000 + i))];
    await sql`insert into virtual_accounts (id, partner_id, environment, account_number, bank_code, bank_name,
        account_name, currency, status, first_name, last_name, customer_email, phone, balance_kobo, last_entry_at,
        created_at)
      values (${sandboxId}, ${id}, 'sandbox', ${sandboxAccount}, ${SANDBOX_BANK_CODE}, 'BaaS Partner Bank',
        ${`Bench Payments ${i}/Ada Eze`}, 'NGN', 'active', 'Ada', 'Eze', ${`sandbox-${i}@example.com`},
        '+2348090000000', ${SANDBOX_BALANCE_KOBO}, ${now}, ${now})`.execute(db);
    await sql`insert into account_transactions (id, account_id, partner_id, environment, type, kind, amount_kobo,
        balance_after_kobo, narration, reference, counterparty_account_name, counterparty_account_number,
        counterparty_bank_code, counterparty_bank_name, session_id, transfer_id, created_at)
      values (${newId()}, ${sandboxId}, ${id}, 'sandbox', 'credit', 'inbound_transfer', ${SANDBOX_BALANCE_KOBO},
        ${SANDBOX_BALANCE_KOBO}, 'Bench funding', ${`BENCH-FUND-${i}`}, ${BENEFICIARY.account_name},
        ${BENEFICIARY.account_number}, ${BENEFICIARY.bank_code}, 'Guaranty Trust Bank', null, null, ${now})`.execute(
      db,
    );
    // The beneficiary as a name enquiry answered it: a transfer naming it calls no bank.
    const nameEnquiryRef = newId();
    await sql`insert into name_enquiries (ref, environment, bank_code, account_number, account_name, bank_ref,
        created_at)
      values (${nameEnquiryRef}, 'sandbox', ${BENEFICIARY.bank_code}, ${BENEFICIARY.account_number},
        ${BENEFICIARY.account_name}, null, ${now})`.execute(db);
    partners.push({ email, token, apiKey, liveAccount, sandboxAccount, nameEnquiryRef });
  }
  return partners;
}

async function pgQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(text).finally(() => client.end());
}

/**
 * A fresh database (a temporary SQLite file, or a schema `bench_<time>` of TEST_DATABASE_URL) with
 * the app's migrations and the seeded partners; `env` is what a server process is started with (the
 * caller's own configuration, REDIS_URL and the like, does not reach it). `drop()` removes it all.
 */
export async function benchDatabase(db: 'sqlite' | 'postgres') {
  const schema = db === 'postgres' ? `bench_${Date.now()}` : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baas-bench-'));
  const url = schema ? PG_URL : `sqlite:${path.join(dataDir, 'bench.sqlite')}`;
  const drop = async () => {
    if (schema) await pgQuery(`drop schema if exists ${schema} cascade`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (schema) await pgQuery(`create schema ${schema}`);
    const handle = openDatabase(url, schema ? { pgSchema: schema } : {});
    const partners = await migrateToLatest(handle.db, schema)
      .then(() => seed(handle.db))
      .finally(() => handle.close());
    const passed = Object.entries(process.env).filter(([key]) => !(key in ConfigSchema.properties));
    const config = { ...APP_CONFIG, DATA_DIR: dataDir, DATABASE_URL: url, BENCH_PG_SCHEMA: schema ?? '' };
    const env: NodeJS.ProcessEnv = { ...Object.fromEntries(passed), ...config };
    /**
     * Dates the seeded name enquiries now: a transfer takes one for 30 minutes (NAME_ENQUIRY_TTL_MS),
     * so a bench renews them before each scenario rather than rely on the whole run being shorter.
     */
    const renewNameEnquiries = async () => {
      const renew = openDatabase(url, schema ? { pgSchema: schema } : {});
      await sql`update name_enquiries set created_at = ${Date.now()}`
        .execute(renew.db)
        .finally(() => renew.close());
    };
    return { partners, env, dataDir, drop, renewNameEnquiries };
  } catch (error) {
    await drop();
    throw error;
  }
}
