import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { profileView } from '../src/modules/onboarding/onboarding.views.js';
import { NIP_BANKS_BY_CODE } from '../src/modules/transfers/banks.js';
import { nipFeeKobo } from '../src/modules/transfers/fees.js';
import type { TransferRow } from '../src/modules/transfers/transfers.repository.js';
import { MAX_TRANSFER_KOBO, NAME_ENQUIRY_TTL_MS } from '../src/modules/transfers/transfers.schemas.js';
import { transferView } from '../src/modules/transfers/transfers.views.js';
import { nairaToKobo } from '../src/modules/virtual-accounts/money.js';
import { nuban } from '../src/modules/virtual-accounts/nuban.js';
import type { VirtualAccountRow } from '../src/modules/virtual-accounts/virtual-accounts.repository.js';
import { accountView, transactionView } from '../src/modules/virtual-accounts/virtual-accounts.views.js';
import { toIso } from '../src/platform/clock.js';
import { verify } from '../src/platform/crypto/standard-webhooks.js';
import { newId, randomToken, sha256 } from '../src/platform/crypto/tokens.js';
import { isUniqueViolation } from '../src/platform/db/errors.js';
import { newEventId } from '../src/platform/events/outbox.repository.js';
import { API_HEADERS } from '../src/platform/http/security-headers.js';

// The raw twin: node:http, no framework, the app's driver with its pragmas (SQLite) or pool size
// (PostgreSQL), the same rows read and written in the fewest statements. The app's pure helpers
// (profileView, accountView, transactionView and transferView, nuban, the fee, ids, hashes, the
// signature check) are shared so that both servers answer alike.

const V1 = '/baas/api/v1';
export const PATHS = {
  profile: `${V1}/client/onboarding/business-info`,
  create: `${V1}/services/virtual-account/create`,
  login: `${V1}/client/onboarding/login`,
  credit: `${V1}/bank/credit-notifications`,
  transfer: `${V1}/services/transfers`,
};
/** The live institution code of the seeded accounts, and the connector's signing secret. */
export const LIVE_BANK_CODE = '090999';
/** The sandbox institution code (the app's default BANK_CODE_SANDBOX). */
export const SANDBOX_BANK_CODE = '999999';
/** Where the bench's transfers go: an account at another bank, named by a seeded name enquiry. */
export const BENEFICIARY = {
  bank_code: '000013',
  account_number: '0123456789',
  account_name: 'CHIOMA ADEBAYO',
};
export const CONNECTOR_SECRET = `whsec_${Buffer.alloc(32, 0x42).toString('base64')}`;
const SESSION_TTL_SECONDS = 7200;
const API_KEY = /^sk_(sandbox|live)_([A-Za-z0-9_-]{43})$/;

// biome-ignore lint/suspicious/noExplicitAny: rows of hand-written SQL
type Row = Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: rows of hand-written SQL
type Query = (params: Record<string, unknown>, client?: pg.PoolClient) => Promise<any>;

/** The entry the credit wrote, shown by the app's own transaction view. */
function entryView(params: Record<string, unknown>, account: Row) {
  return transactionView({
    id: params['entry_id'] as string,
    account_id: account['id'],
    partner_id: account['partner_id'],
    environment: 'live',
    type: 'credit',
    kind: 'inbound_transfer',
    amount_kobo: params['amount_kobo'] as number,
    balance_after_kobo: Number(account['balance_kobo']),
    narration: params['narration'] as string | null,
    reference: params['reference'] as string,
    counterparty_account_name: params['o_name'] as string,
    counterparty_account_number: params['o_number'] as string,
    counterparty_bank_code: params['o_bank_code'] as string,
    counterparty_bank_name: params['o_bank_name'] as string | null,
    session_id: params['session_id'] as string,
    transfer_id: null,
    created_at: Number(account['last_entry_at']),
  });
}

/** The credit's rows' values once the balance moved: the entry, its event payload, the audit's metadata. */
function creditRows(params: Record<string, unknown>, account: Row): Record<string, unknown> {
  const transaction = entryView(params, account);
  return Object.assign({}, params, {
    account_id: account['id'],
    partner_id: account['partner_id'],
    balance_after: Number(account['balance_kobo']),
    created_at: Number(account['last_entry_at']),
    transaction,
    payload: JSON.stringify({ transaction, account: accountView(account as VirtualAccountRow) }),
    metadata: JSON.stringify({
      account_number: account['account_number'],
      amount_kobo: params['amount_kobo'],
      reference: params['reference'],
      session_id: params['session_id'],
    }),
  });
}
/**
 * A transfer's acceptance as the statement(s) saw it: the key's id (none: an unknown key), the source
 * account's status, whether the reference was taken, whether the name enquiry is still good for the
 * beneficiary, and the transfer written (none when any of these, or the available balance, refused).
 */
type TransferOutcome = {
  key_id: string | null;
  source_status: string | null;
  duplicate: boolean | number;
  enquired: boolean | number;
  transfer: TransferRow | undefined;
};

type Store = Record<'profile' | 'create' | 'partner' | 'session' | 'credit', Query> & {
  transfer(params: Record<string, unknown>): Promise<TransferOutcome>;
  close(): Promise<void>;
};

/** The webhook endpoint of the new account's environment, if any (`w`). */
const endpoint =
  'left join webhook_endpoints w on w.partner_id = a.partner_id and w.environment = a.environment';

/**
 * Both dialects' statements, with `@name` placeholders; `json`/`jsonArray` name the dialect's
 * builders, `greatest` its largest-of-a-row.
 */
function statements(json: string, jsonArray: string, greatest: string) {
  const text = (name: string) => `cast(@${name} as text)`;
  return {
    // A credit: the live account's balance and last entry time moved under its row lock, if active.
    balance: `update virtual_accounts set balance_kobo = balance_kobo + @amount_kobo,
        last_entry_at = ${greatest}(@now, coalesce(status_changed_at, @now), coalesce(last_entry_at, -1) + 1)
      where bank_code = @bank_code and account_number = @account_number and environment = 'live'
        and status = 'active' returning *`,
    entry: `insert into account_transactions (id, account_id, partner_id, environment, type, kind, amount_kobo,
        balance_after_kobo, narration, reference, counterparty_account_name, counterparty_account_number,
        counterparty_bank_code, counterparty_bank_name, session_id, transfer_id, created_at)
      values (@entry_id, @account_id, @partner_id, 'live', 'credit', 'inbound_transfer', @amount_kobo,
        @balance_after, @narration, @reference, @o_name, @o_number, @o_bank_code, @o_bank_name, @session_id, null,
        @created_at)`,
    notification: `insert into bank_credit_notifications (id, session_id, account_number, amount_kobo, narration,
        originator_account_name, originator_account_number, originator_bank_code, originator_bank_name,
        transaction_at, outcome, error_code, partner_id, account_id, transaction_id, request_id, received_at)
      values (@notification_id, @session_id, @account_number, @amount_kobo, @narration, @o_name, @o_number,
        @o_bank_code, @o_bank_name, @transaction_at, 'credited', null, @partner_id, @account_id, @entry_id,
        @request_id, @created_at)`,
    creditAudit: `insert into audit_events (id, partner_id, actor_type, actor_id, action, target_type, target_id,
        metadata, request_id, ip, created_at)
      values (@audit_id, @partner_id, 'system', 'bank_connector', 'virtual_account.credited', 'virtual_account',
        @account_id, @metadata, @request_id, @ip, @created_at)`,
    creditEvent: `insert into outbox_events (id, partner_id, environment, type, payload, created_at, status,
        attempts, next_attempt_at, last_error)
      select @event_id, @partner_id, 'live', 'virtual_account.credited', @payload, @created_at,
        case when e.partner_id is null then 'skipped' else 'pending' end, 0, @created_at,
        case when e.partner_id is null then 'no webhook endpoint is set for this environment' end
      from (select 1) one left join (select partner_id from webhook_endpoints
        where partner_id = @partner_id and environment = 'live') e on true`,
    profile: `select p.id, p.email, p.business_name, p.legal_business_name, p.phone, p.business_type, p.rc_number,
        p.address, p.website, p.onboarding_status, p.review_notes, s.environment, s.expires_at,
        (select ${json}('first_name', first_name, 'last_name', last_name, 'email', email, 'kyc_status', kyc_status,
          'kyc_message', kyc_message) from representatives where partner_id = p.id) as rep,
        (select coalesce(${jsonArray}(${json}('id', id, 'document_type', document_type, 'status', status,
          'rejection_reason', rejection_reason, 'uploaded_at', uploaded_at)), '[]') from (select * from documents
          where partner_id = p.id and superseded_at is null order by uploaded_at, id) d) as docs
      from sessions s join partners p on p.id = s.partner_id
        join partner_users u on u.id = s.user_id and u.removed_at is null where s.token_hash = @token_hash`,
    key: `select k.id, k.partner_id, k.environment, p.business_name from api_keys k
      join partners p on p.id = k.partner_id where k.lookup_prefix = @prefix and k.key_hash = @key_hash
      and k.environment = @environment and k.revoked_at is null`,
    account: `insert into virtual_accounts (id, partner_id, environment, account_number, bank_code, bank_name,
        account_name, currency, status, first_name, last_name, customer_email, phone, created_at)
      select ${text('id')}, k.partner_id, k.environment, ${text('number')}, '999999', 'BaaS Partner Bank',
        k.business_name || '/' || ${text('first_name')} || ' ' || ${text('last_name')}, 'NGN', 'active',
        ${text('first_name')}, ${text('last_name')}, ${text('email')}, ${text('phone')}, cast(@now as bigint)`,
    audit: `insert into audit_events (id, partner_id, actor_type, actor_id, action, target_type, target_id, metadata,
        request_id, ip, created_at)
      select ${text('audit_id')}, a.partner_id, 'partner', 'api_key:' || k.id, 'virtual_account.created',
        'virtual_account', a.id, cast(${json}('account_number', a.account_number, 'environment', a.environment)
        as text), ${text('request_id')}, ${text('ip')}, a.created_at`,
    // The payload is the account's view, which is also the answer. As in the app, an event of an
    // environment without a webhook endpoint is written skipped.
    event: `insert into outbox_events (id, partner_id, environment, type, payload, created_at, status, attempts,
        next_attempt_at, last_error)
      select ${text('event_id')}, a.partner_id, a.environment, 'virtual_account.created', cast(${json}('id', a.id,
        'account_number', a.account_number, 'account_name', a.account_name, 'bank_name', a.bank_name, 'bank_code',
        a.bank_code, 'currency', a.currency, 'status', a.status, 'status_reason', null, 'status_changed_at', null,
        'balance', 0, 'balance_kobo', 0, 'available_balance', 0, 'available_balance_kobo', 0, 'environment',
        a.environment, 'customer', ${json}('first_name', a.first_name, 'last_name', a.last_name, 'email',
        a.customer_email, 'phone', a.phone), 'created_at', ${text('created_at')}) as text), a.created_at,
        case when w.partner_id is null then 'skipped' else 'pending' end, 0, a.created_at,
        case when w.partner_id is null then 'no webhook endpoint is set for this environment' end`,
    // A transfer: the amount and fee held on the active source account if its available balance
    // covers them (ledger.repository.ts holdGuard), the transfer, its first status and its audit.
    hold: `update virtual_accounts set held_kobo = held_kobo + @total
      where id = @account_id and status = 'active' and balance_kobo - held_kobo >= @total returning *`,
    transfer: `insert into transfers (id, partner_id, environment, account_id, source_account_number,
        source_account_name, reference, kind, status, amount_kobo, fee_kobo, beneficiary_account_name,
        beneficiary_account_number, beneficiary_bank_code, beneficiary_bank_name, beneficiary_account_id, narration,
        name_enquiry_ref, bank_name_enquiry_ref, session_id, failure_reason, response_code, sent_at, next_query_at,
        query_attempts, created_at, updated_at)`,
    statusChange: 'insert into transfer_status_changes (id, transfer_id, status, reason, at)',
    transferAudit: `insert into audit_events (id, partner_id, actor_type, actor_id, action, target_type, target_id,
        metadata, request_id, ip, created_at)`,
    partner: `select u.partner_id as id, u.id as user_id, u.password_hash from partner_users u
      join partners p on p.id = u.partner_id
      where u.email = @email and u.removed_at is null and p.verified_at is not null`,
    session: `insert into sessions (id, token_hash, partner_id, user_id, environment, created_at, expires_at)
      values (@id, @token_hash, @partner_id, @user_id, 'sandbox', @now, @expires_at)`,
  };
}

function sqliteStore(file: string): Store {
  const db = new SQLite(file);
  db.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL; pragma foreign_keys = ON');
  db.exec('pragma busy_timeout = 5000');
  const sql = statements('json_object', 'json_group_array', 'max');
  const [balance, entry, notification, creditAudit, creditEvent] = [
    sql.balance,
    sql.entry,
    sql.notification,
    sql.creditAudit,
    sql.creditEvent,
  ].map((text) => db.prepare(text));
  // The balance (none for an account that is not there or not active) and the four rows: one transaction.
  const credit = db.transaction((params: Record<string, unknown>) => {
    const account = balance!.get(params) as Row | undefined;
    if (!account) return undefined;
    const rows = creditRows(params, account);
    entry!.run(rows);
    notification!.run(rows);
    creditAudit!.run(rows);
    creditEvent!.run(rows);
    return rows;
  });
  // The key, the source account, the reference's use and the name enquiry in one read; then the hold
  // and the three rows. One transaction, BEGIN IMMEDIATE: a deferred one that read first could not
  // take the write lock after another process (the idle app's workers) wrote, SQLITE_BUSY at once.
  const [transferRead, hold, insertTransfer, statusChange, transferAudit] = [
    `select k.id as key_id, k.partner_id, a.id as account_id, a.status as source_status,
        exists (select 1 from transfers t where t.partner_id = k.partner_id and t.environment = k.environment
          and t.reference = @reference) as duplicate,
        n.ref is not null as enquired, n.account_name as beneficiary_name, n.bank_ref
      from (${sql.key}) k
      left join virtual_accounts a on a.partner_id = k.partner_id and a.environment = k.environment
        and a.account_number = @source
      left join name_enquiries n on n.ref = @ref and n.environment = k.environment and n.created_at >= @not_before
        and n.bank_code = @bank_code and n.account_number = @account_number`,
    sql.hold,
    `${sql.transfer} values (@id, @partner_id, @environment, @account_id, @source_account_number,
        @source_account_name, @reference, @kind, @status, @amount_kobo, @fee_kobo, @beneficiary_account_name,
        @beneficiary_account_number, @beneficiary_bank_code, @beneficiary_bank_name, @beneficiary_account_id,
        @narration, @name_enquiry_ref, @bank_name_enquiry_ref, @session_id, @failure_reason, @response_code,
        @sent_at, @next_query_at, @query_attempts, @created_at, @updated_at)`,
    `${sql.statusChange} values (@change_id, @id, 'pending', null, @now)`,
    `${sql.transferAudit} values (@audit_id, @partner_id, 'partner', @actor_id, 'transfer.created', 'transfer', @id,
        @metadata, @request_id, @ip, @now)`,
  ].map((text) => db.prepare(text));
  const transfer = db.transaction((params: Record<string, unknown>): TransferOutcome => {
    const read = transferRead!.get(params) as Row | undefined;
    const outcome: TransferOutcome = {
      key_id: read?.['key_id'] ?? null,
      source_status: read?.['source_status'] ?? null,
      duplicate: read?.['duplicate'] ?? 0,
      enquired: read?.['enquired'] ?? 0,
      transfer: undefined,
    };
    if (read?.['source_status'] !== 'active' || read['duplicate'] || !read['enquired']) return outcome;
    const held = hold!.get({ account_id: read['account_id'], total: params['total'] }) as Row | undefined;
    if (!held) return outcome;
    const row: TransferRow = {
      id: params['id'] as string,
      partner_id: held['partner_id'],
      environment: held['environment'],
      account_id: held['id'],
      source_account_number: held['account_number'],
      source_account_name: held['account_name'],
      reference: params['reference'] as string,
      kind: 'interbank',
      status: 'pending',
      amount_kobo: params['amount_kobo'] as number,
      fee_kobo: params['fee_kobo'] as number,
      beneficiary_account_name: read['beneficiary_name'],
      beneficiary_account_number: params['account_number'] as string,
      beneficiary_bank_code: params['bank_code'] as string,
      beneficiary_bank_name: params['bank_name'] as string,
      beneficiary_account_id: null,
      narration: params['narration'] as string,
      name_enquiry_ref: params['ref'] as string,
      bank_name_enquiry_ref: read['bank_ref'],
      session_id: null,
      failure_reason: null,
      response_code: null,
      sent_at: null,
      next_query_at: params['now'] as number,
      query_attempts: 0,
      created_at: params['now'] as number,
      updated_at: params['now'] as number,
    };
    insertTransfer!.run(row);
    const rest = {
      id: row.id,
      partner_id: row.partner_id,
      change_id: params['change_id'],
      audit_id: params['audit_id'],
      actor_id: `api_key:${read['key_id']}`,
      metadata: params['metadata'],
      request_id: params['request_id'],
      ip: params['ip'],
      now: params['now'],
    };
    statusChange!.run(rest);
    transferAudit!.run(rest);
    outcome.transfer = row;
    return outcome;
  });
  const [profile, account, audit, event, partner, session] = [
    sql.profile,
    `${sql.account} from (${sql.key}) k`,
    `${sql.audit} from virtual_accounts a, (${sql.key}) k where a.id = @id`,
    `${sql.event} from virtual_accounts a ${endpoint} where a.id = @id returning payload`,
    sql.partner,
    sql.session,
  ].map((text) => db.prepare(text));
  // The account (none for an unknown key), its audit event and its outbox event: one transaction.
  const create = db.transaction((params) => {
    if (account!.run(params).changes === 0) return undefined;
    audit!.run(params);
    return event!.get(params);
  });
  return {
    profile: async (params) => profile!.get(params),
    create: async (params) => create(params),
    partner: async (params) => partner!.get(params),
    session: async (params) => session!.run(params),
    credit: async (params) => credit(params),
    transfer: async (params) => transfer.immediate(params),
    close: async () => void db.close(),
  };
}

/** One round trip a request: the profile with its JSON parts; the creation as data-modifying CTEs. */
function postgresStore(url: string, schema: string | undefined): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20 || oid === 1700 ? Number : pg.types.getTypeParser(oid, format),
    } as pg.CustomTypesConfig,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', () => undefined);
  const sql = statements('json_build_object', 'json_agg', 'greatest');
  const query = (name: string, text: string): Query => {
    const names: string[] = [];
    const numbered = text.replace(/@(\w+)/g, (_, param: string) => {
      if (!names.includes(param)) names.push(param);
      return `$${names.indexOf(param) + 1}`;
    });
    return async (params, client?: pg.PoolClient) =>
      (await (client ?? pool).query({ name, text: numbered, values: names.map((param) => params[param]) }))
        .rows[0];
  };
  const balance = query('balance', sql.balance);
  const creditRowsStatement = query(
    'credit_rows',
    `with e as (${sql.entry}), n as (${sql.notification}), au as (${sql.creditAudit}), ev as (${sql.creditEvent})
      select 1`,
  );
  /** BEGIN, the balance under the row lock, the four rows in one statement, COMMIT. */
  async function credit(params: Record<string, unknown>) {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const account = (await balance(params, client)) as Row | undefined;
      if (!account) {
        await client.query('rollback');
        return undefined;
      }
      const rows = creditRows(params, account);
      await creditRowsStatement(rows, client);
      await client.query('commit');
      return rows;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  // A transfer in one statement: the reads, then the hold (an UPDATE, under the account's row lock,
  // that matches nothing when the source, the enquiry or the available balance refuse), the transfer
  // from the held row and the three rows from the transfer, atomic as one statement is. A reference
  // used before is refused by the unique index, as in the app, which reads it only before calling a
  // bank: the twin's read of it here slowed the twin down as a run's transfers piled up (bench/README.md).
  const text = (name: string) => `cast(@${name} as text)`;
  const big = (name: string) => `cast(@${name} as bigint)`;
  const transferStatement = query(
    'transfer',
    `with k as (${sql.key}),
      s as (select a.id, a.status from virtual_accounts a join k on a.partner_id = k.partner_id
        where a.environment = k.environment and a.account_number = @source),
      n as (select * from name_enquiries where ref = @ref and environment = @environment
        and created_at >= @not_before and bank_code = @bank_code and account_number = @account_number),
      h as (update virtual_accounts v set held_kobo = v.held_kobo + @total from s
        where v.id = s.id and v.status = 'active' and v.balance_kobo - v.held_kobo >= @total
        and exists (select 1 from n) returning v.*),
      t as (${sql.transfer} select ${text('id')}, h.partner_id, h.environment, h.id, h.account_number,
        h.account_name, ${text('reference')}, 'interbank', 'pending', ${big('amount_kobo')}, ${big('fee_kobo')},
        n.account_name, n.account_number, n.bank_code, ${text('bank_name')}, null, ${text('narration')}, n.ref,
        n.bank_ref, null, null, null, null, ${big('now')}, 0, ${big('now')}, ${big('now')} from h, n returning *),
      c as (${sql.statusChange} select ${text('change_id')}, t.id, 'pending', null, t.created_at from t),
      au as (${sql.transferAudit} select ${text('audit_id')}, t.partner_id, 'partner', 'api_key:' || k.id,
        'transfer.created', 'transfer', t.id, ${text('metadata')}, ${text('request_id')}, ${text('ip')},
        t.created_at from t, k)
    select k.id as key_id, s.status as source_status, false as duplicate,
      exists (select 1 from n) as enquired, t.*
    from (select 1) one left join k on true left join s on true left join t on true`,
  );
  const create = `with k as (${sql.key}), a as (${sql.account} from k returning *),
    au as (${sql.audit} from a, k), ev as (${sql.event} from a ${endpoint} returning payload) select payload from ev`;
  return {
    profile: query('profile', sql.profile),
    create: query('create', create),
    partner: query('partner', sql.partner),
    session: query('session', sql.session),
    credit,
    transfer: async (params) => {
      const row = (await transferStatement(params)) as Row;
      const { key_id, source_status, duplicate, enquired } = row;
      return {
        key_id,
        source_status,
        duplicate,
        enquired,
        transfer: row['id'] ? (row as TransferRow) : undefined,
      };
    },
    close: () => pool.end(),
  };
}

type Verify = (hash: string, password: string) => Promise<boolean>;

/** The fastest argon2id binding installed: @node-rs/argon2 (Rust), else argon2 (the app's own). */
export async function argon2Verify(): Promise<{ name: string; verify: Verify }> {
  const rust = '@node-rs/argon2';
  try {
    return { name: rust, verify: ((await import(rust)) as { verify: Verify }).verify };
  } catch {
    const { default: argon2 } = await import('argon2');
    return { name: 'argon2', verify: (hash, password) => argon2.verify(hash, password) };
  }
}

/**
 * Answers `data` (an object, or JSON text) in the app's envelope, or an error code, with the app's
 * headers: its security headers and a Content-Length (the same bytes to send and to parse).
 */
function send(res: ServerResponse, status: number, message: string, data?: unknown): void {
  const json = typeof data === 'string' ? data : JSON.stringify(data ?? { code: message });
  const body = `{"status":"${status < 300 ? 'success' : 'error'}","message":"${message}","data":${json}}`;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': randomUUID(),
    ...API_HEADERS,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<Record<string, string | undefined>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) ?? {};
}

const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

export async function startRaw(url: string, schema?: string) {
  const store = url.startsWith('postgres')
    ? postgresStore(url, schema)
    : sqliteStore(url.slice('sqlite:'.length));
  const argon2 = await argon2Verify();
  const bearer = (req: IncomingMessage) => /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';

  async function profile(req: IncomingMessage, res: ServerResponse) {
    const row = await store.profile({ token_hash: sha256(bearer(req)) });
    if (!row || row.expires_at <= Date.now()) return send(res, 401, 'UNAUTHENTICATED');
    const record = {
      partner: row,
      representative: parsed(row.rep) ?? undefined,
      documents: parsed(row.docs),
    };
    send(res, 200, 'Onboarding profile.', profileView(record, row.environment));
  }

  async function create(req: IncomingMessage, res: ServerResponse) {
    const key = API_KEY.exec(bearer(req));
    if (!key) return send(res, 401, 'UNAUTHENTICATED');
    const { first_name, last_name, email, phone } = await readJson(req);
    if (!first_name || !last_name || !email || !phone) return send(res, 422, 'VALIDATION_FAILED');
    const [prefix, keyHash, environment] = [key[2]!.slice(0, 12), sha256(key[0]), key[1]];
    const [requestId, ip] = [randomUUID(), req.socket.remoteAddress];
    for (let attempt = 0; attempt < 10; attempt++) {
      const [number, now] = [nuban('999999', String(randomInt(0, 1e9)).padStart(9, '0')), Date.now()];
      try {
        // One literal: on Node 20, an object spread followed by more properties takes V8's slow path
        // (a new map per object), which would charge the twin for more than its work.
        const row = await store.create({
          prefix,
          key_hash: keyHash,
          environment,
          request_id: requestId,
          ip,
          first_name,
          last_name,
          phone,
          id: newId(),
          audit_id: newId(),
          event_id: newEventId(),
          email: email.toLowerCase(),
          number,
          now,
          created_at: toIso(now),
        });
        return row
          ? send(res, 201, 'Virtual account created.', row.payload)
          : send(res, 401, 'UNAUTHENTICATED');
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // A NUBAN drawn twice is drawn again; the customer's e-mail taken is the client's conflict.
        const { constraint, message } = error as { constraint?: string; message?: string };
        if (!/number/.test(constraint ?? message ?? '')) return send(res, 409, 'VIRTUAL_ACCOUNT_EXISTS');
      }
    }
    send(res, 503, 'NUMBER_SPACE_BUSY');
  }

  async function login(req: IncomingMessage, res: ServerResponse) {
    const { email = '', password = '' } = await readJson(req);
    const partner = await store.partner({ email: email.toLowerCase() });
    if (!partner || !(await argon2.verify(partner.password_hash, password.normalize('NFKC'))))
      return send(res, 401, 'INVALID_CREDENTIALS');
    const [token, now] = [randomToken(), Date.now()];
    const expires_at = now + SESSION_TTL_SECONDS * 1000;
    await store.session({
      id: newId(),
      token_hash: sha256(token),
      partner_id: partner.id,
      user_id: partner.user_id,
      now,
      expires_at,
    });
    const data = { token, token_type: 'Bearer', expires_in: SESSION_TTL_SECONDS, environment: 'sandbox' };
    send(res, 200, 'Logged in.', data);
  }

  /** A credit notification: the connector's signature over the raw bytes, then the credit. */
  async function credit(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    if (verify(CONNECTOR_SECRET, req.headers, raw, Math.floor(Date.now() / 1000)) !== undefined)
      return send(res, 401, 'SIGNATURE_INVALID');
    const body = JSON.parse(raw.toString('utf8'));
    const { session_id, account_number, amount_kobo, originator } = body;
    if (!/^[0-9]{30}$/.test(session_id) || !Number.isSafeInteger(amount_kobo) || !originator)
      return send(res, 422, 'VALIDATION_FAILED');
    const rows = await store.credit({
      bank_code: LIVE_BANK_CODE,
      account_number,
      amount_kobo,
      now: Date.now(),
      entry_id: newId(),
      notification_id: newId(),
      audit_id: newId(),
      event_id: newEventId(),
      narration: body.narration ?? null,
      reference: `NIP-${session_id}`,
      session_id,
      o_name: originator.account_name,
      o_number: originator.account_number,
      o_bank_code: originator.bank_code,
      o_bank_name: originator.bank_name ?? null,
      transaction_at: Date.parse(body.transaction_at),
      request_id: randomUUID(),
      ip: req.socket.remoteAddress,
    });
    if (!rows) return send(res, 404, 'NOT_FOUND');
    send(res, 200, 'Credited.', { outcome: 'credited', transaction: rows['transaction'] });
  }

  /**
   * A transfer out, as the app accepts one given a name_enquiry_ref still good for the beneficiary
   * (the app would otherwise ask the bank; the twin answers BENEFICIARY_NOT_FOUND). Book transfers (to
   * this institution's own code) are not the twin's: the code is not a NIP bank, so 422.
   */
  async function transfer(req: IncomingMessage, res: ServerResponse) {
    const key = API_KEY.exec(bearer(req));
    if (!key) return send(res, 401, 'UNAUTHENTICATED');
    const body = (await readJson(req)) as Record<string, unknown>;
    const { source_account_number, amount, bank_code, account_number, reference, name_enquiry_ref } = body;
    const amountKobo =
      typeof amount === 'number' || typeof amount === 'string' ? nairaToKobo(amount) : undefined;
    const bank = NIP_BANKS_BY_CODE.get(bank_code as string);
    if (
      typeof source_account_number !== 'string' ||
      typeof account_number !== 'string' ||
      typeof reference !== 'string' ||
      !/^[A-Za-z0-9_-]{1,64}$/.test(reference) ||
      typeof name_enquiry_ref !== 'string' ||
      amountKobo === undefined ||
      amountKobo <= 0 ||
      amountKobo > MAX_TRANSFER_KOBO ||
      !bank
    )
      return send(res, 422, 'VALIDATION_FAILED');
    const feeKobo = nipFeeKobo(amountKobo);
    const now = Date.now();
    const params = {
      prefix: key[2]!.slice(0, 12),
      key_hash: sha256(key[0]),
      environment: key[1],
      source: source_account_number,
      reference,
      ref: name_enquiry_ref,
      not_before: now - NAME_ENQUIRY_TTL_MS,
      bank_code,
      account_number,
      bank_name: bank.name,
      narration: (body['narration'] as string | undefined) ?? reference,
      amount_kobo: amountKobo,
      fee_kobo: feeKobo,
      total: amountKobo + feeKobo,
      now,
      id: newId(),
      change_id: newId(),
      audit_id: newId(),
      // The app's audit metadata, in its order.
      metadata: JSON.stringify({
        reference,
        source_account_number,
        amount_kobo: amountKobo,
        fee_kobo: feeKobo,
        bank_code,
        account_number,
      }),
      request_id: randomUUID(),
      ip: req.socket.remoteAddress,
    };
    let outcome: TransferOutcome;
    try {
      outcome = await store.transfer(params);
    } catch (error) {
      // The reference taken by a concurrent transfer: the unique index decides, as in the app.
      if (isUniqueViolation(error)) return send(res, 409, 'DUPLICATE_REFERENCE');
      throw error;
    }
    const { key_id, source_status, duplicate, enquired, transfer: row } = outcome;
    if (!key_id) return send(res, 401, 'UNAUTHENTICATED');
    if (!source_status) return send(res, 404, 'NOT_FOUND');
    if (source_status !== 'active')
      return send(res, 409, source_status === 'inactive' ? 'ACCOUNT_INACTIVE' : 'ACCOUNT_CLOSED');
    if (duplicate) return send(res, 409, 'DUPLICATE_REFERENCE');
    if (!enquired) return send(res, 422, 'BENEFICIARY_NOT_FOUND');
    if (!row) return send(res, 409, 'INSUFFICIENT_FUNDS');
    const view = transferView(row, [{ status: 'pending', at: row.created_at }]);
    send(res, 202, 'Transfer accepted.', view);
  }

  const routes: Record<string, typeof login> = {
    [`POST ${PATHS.transfer}`]: transfer,
    [`POST ${PATHS.credit}`]: credit,
    [`GET ${PATHS.profile}`]: profile,
    [`POST ${PATHS.create}`]: create,
    [`POST ${PATHS.login}`]: login,
  };
  const server = createServer((req, res) => {
    const route = routes[`${req.method} ${req.url}`];
    if (!route) return send(res, 404, 'NOT_FOUND');
    route(req, res).catch((error: unknown) => {
      process.stderr.write(`raw: ${String(error)}\n`);
      if (!res.headersSent) send(res, 500, 'INTERNAL');
    });
  });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => store.close());
  return { server, close };
}
