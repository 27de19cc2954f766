import { sql } from 'kysely';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../../support/app.js';
import type { Violation } from './oracle.js';
import type { FuzzWorld } from './world.js';

/**
 * What a rejected request must leave untouched. Counts (and a few aggregates) of every table the
 * published rules let a request change, plus the full rows of the world's partners and of the
 * resource a request names. Left out on purpose: audit_events, login_attempts, throttles and
 * rate_windows (a rejected login or OTP may add to them) and api_keys.last_used_at (authentication
 * bookkeeping).
 */
const METRICS: Array<[string, string]> = [
  ['partners.count', 'select count(*) from partners'],
  ['one_time_codes.count', 'select count(*) from one_time_codes'],
  ['one_time_codes.attempts', 'select coalesce(sum(attempts), 0) from one_time_codes'],
  ['mail_outbox.count', 'select count(*) from mail_outbox'],
  ['sessions.count', 'select count(*) from sessions'],
  ['sessions.live', "select count(*) from sessions where environment = 'live'"],
  ['representatives.count', 'select count(*) from representatives'],
  ['kyc_checks.count', 'select count(*) from kyc_checks'],
  ['documents.count', 'select count(*) from documents'],
  ['documents.current', 'select count(*) from documents where superseded_at is null'],
  ['documents.approved', "select count(*) from documents where status = 'approved'"],
  ['documents.rejected', "select count(*) from documents where status = 'rejected'"],
  ['api_keys.count', 'select count(*) from api_keys'],
  ['api_keys.revoked', 'select count(*) from api_keys where revoked_at is not null'],
  ['team_members.count', 'select count(*) from team_members'],
  ['virtual_accounts.count', 'select count(*) from virtual_accounts'],
  ['account_transactions.count', 'select count(*) from account_transactions'],
  ['account_transactions.kobo', 'select coalesce(sum(amount_kobo), 0) from account_transactions'],
  ['webhook_endpoints.count', 'select count(*) from webhook_endpoints'],
  ['webhook_attempts.manual', "select count(*) from webhook_attempts where trigger = 'manual'"],
  ['outbox_events.count', 'select count(*) from outbox_events'],
  ['idempotency_keys.count', 'select count(*) from idempotency_keys'],
];

/** The resource a request names, whose row is compared in full (values already checked to be ids). */
export interface Focus {
  teamMember?: string;
  document?: string;
  apiKey?: string;
  accountNumber?: string;
}

export type Snapshot = Map<string, string>;

interface ContentSpec {
  name: string;
  table: string;
  where: (ids: string, focus: Focus) => string | undefined;
  order: string;
  exclude?: string[];
}

/** Identifiers inlined into SQL are checked first: uuids and 10-digit account numbers only. */
const literal = (value: string | undefined): string | undefined =>
  value !== undefined && /^[0-9a-fA-F-]{1,64}$/.test(value) ? `'${value}'` : undefined;

const CONTENT: ContentSpec[] = [
  { name: 'partners.rows', table: 'partners', where: (ids) => `id in (${ids})`, order: 'id' },
  {
    name: 'representatives.rows',
    table: 'representatives',
    where: (ids) => `partner_id in (${ids})`,
    order: 'partner_id',
  },
  {
    name: 'webhook_endpoints.rows',
    table: 'webhook_endpoints',
    where: (ids) => `partner_id in (${ids})`,
    order: 'partner_id, environment',
    // The webhook worker takes and hands back an endpoint's lane on its own, whatever a request does.
    exclude: ['lane_token', 'lane_until', 'lane_served_at'],
  },
  // The main partner's sessions (its environment); sessions.count sees logins and logouts of all.
  {
    name: 'sessions.rows',
    table: 'sessions',
    where: (ids) => `partner_id = ${ids.split(',')[0]}`,
    order: 'id',
  },
  { name: 'team_members.focus', table: 'team_members', where: (_, f) => w('id', f.teamMember), order: 'id' },
  { name: 'documents.focus', table: 'documents', where: (_, f) => w('id', f.document), order: 'id' },
  {
    name: 'api_keys.focus',
    table: 'api_keys',
    where: (_, f) => w('id', f.apiKey),
    order: 'id',
    exclude: ['last_used_at'],
  },
  {
    name: 'virtual_accounts.focus',
    table: 'virtual_accounts',
    where: (_, f) => w('account_number', f.accountNumber),
    order: 'id',
  },
];

function w(column: string, value: string | undefined): string | undefined {
  const quoted = literal(value);
  return quoted ? `${column} = ${quoted}` : undefined;
}

const columnCache = new WeakMap<FuzzWorld, Map<string, string[]>>();

async function columnsOf(world: FuzzWorld): Promise<Map<string, string[]>> {
  const cached = columnCache.get(world);
  if (cached) return cached;
  const columns = new Map<string, string[]>();
  for (const spec of CONTENT) {
    if (columns.has(spec.table)) continue;
    const query =
      world.dialect === 'postgres'
        ? sql<{
            name: string;
          }>`select column_name as name from information_schema.columns where table_name = ${spec.table} and table_schema = current_schema() order by ordinal_position`
        : sql<{ name: string }>`select name from pragma_table_info(${spec.table})`;
    const rows = (await query.execute(world.t.db)).rows;
    columns.set(
      spec.table,
      rows.map((row) => row.name),
    );
  }
  columnCache.set(world, columns);
  return columns;
}

interface SnapshotQuery {
  /** SQLite: the query text for a focus (ids inlined after checking). */
  sqlite?: (focus: Focus) => string;
  /** PostgreSQL: a named prepared statement on a connection of its own (planning 30 subqueries costs more than running them). */
  postgres?: { client: pg.Client; text: string };
}

const queries = new WeakMap<FuzzWorld, Promise<SnapshotQuery>>();

async function prepare(world: FuzzWorld): Promise<SnapshotQuery> {
  const columns = await columnsOf(world);
  const ids = world.knownPartnerIds.map((id) => String(Math.trunc(id))).join(', ');
  const metrics = METRICS.map(([name, query]) => `select '${name}' as k, cast((${query}) as text) as v`);
  if (world.dialect === 'postgres') {
    const params: Record<string, string> = {
      'team_members.focus': '$1',
      'documents.focus': '$2',
      'api_keys.focus': '$3',
      'virtual_accounts.focus': '$4',
    };
    const parts = CONTENT.map((spec) => {
      const cols = (columns.get(spec.table) ?? []).filter((column) => !spec.exclude?.includes(column));
      const parameter = params[spec.name];
      const where = parameter
        ? `${spec.name === 'virtual_accounts.focus' ? 'account_number' : 'id'} = ${parameter}::text`
        : spec.where(ids, {});
      return `select '${spec.name}' as k, (select coalesce(json_agg(json_build_array(${cols.join(', ')}) order by ${spec.order})::text, '[]') from ${spec.table} where ${where}) as v`;
    });
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(world.t.db))
      .rows[0]!.schema;
    const client = new pg.Client({
      connectionString: TEST_DATABASE_URL,
      options: `-c search_path=${schema}`,
    });
    await client.connect();
    world.cleanups.push(() => client.end());
    return { postgres: { client, text: [...metrics, ...parts].join(' union all ') } };
  }
  return {
    sqlite: (focus) => {
      const parts = [...metrics];
      for (const spec of CONTENT) {
        const where = spec.where(ids, focus);
        if (!where) continue;
        const cols = (columns.get(spec.table) ?? []).filter((column) => !spec.exclude?.includes(column));
        parts.push(
          `select '${spec.name}' as k, (select coalesce(json_group_array(json_array(${cols.join(', ')})), '[]') from (select * from ${spec.table} where ${where} order by ${spec.order})) as v`,
        );
      }
      return parts.join(' union all ');
    },
  };
}

/** One query per snapshot: the metrics, then the rows of the content tables as JSON text. */
export async function snapshot(world: FuzzWorld, focus: Focus): Promise<Snapshot> {
  let prepared = queries.get(world);
  if (!prepared) {
    prepared = prepare(world);
    queries.set(world, prepared);
  }
  const query = await prepared;
  let rows: Array<{ k: string; v: unknown }>;
  if (query.postgres) {
    rows = (
      await query.postgres.client.query<{ k: string; v: unknown }>({
        name: 'fuzz_snapshot',
        text: query.postgres.text,
        values: [
          focus.teamMember ?? null,
          focus.document ?? null,
          focus.apiKey ?? null,
          focus.accountNumber ?? null,
        ],
      })
    ).rows;
  } else {
    rows = (await sql.raw<{ k: string; v: unknown }>(query.sqlite!(focus)).execute(world.t.db)).rows;
  }
  const result: Snapshot = new Map();
  for (const row of rows) result.set(row.k, String(row.v));
  return result;
}

export interface DiffAllowance {
  /**
   * verify-otp, password reset: a wrong code counts an attempt (five wrong codes kill it:
   * docs/partner-guide.md, "Your account").
   */
  otpAttempts?: boolean;
  /**
   * The Idempotency-Key sent, if any: its first response is kept for replay (docs/partner-guide.md,
   * "Authentication").
   */
  idempotencyKey?: string;
}

/** Differences between two snapshots that a rejected request is not allowed to cause. */
export async function persistedChanges(
  world: FuzzWorld,
  before: Snapshot,
  after: Snapshot,
  allowance: DiffAllowance,
  status: number,
): Promise<Violation[]> {
  const changed: string[] = [];
  for (const [name, value] of before) {
    const now = after.get(name);
    if (now === value) continue;
    if (allowance.otpAttempts && name.startsWith('one_time_codes.')) continue;
    if (
      name === 'idempotency_keys.count' &&
      allowance.idempotencyKey !== undefined &&
      Number(now) === Number(value) + 1
    ) {
      const stored = await world.t.db
        .selectFrom('idempotency_keys')
        .select(['response_status'])
        .where('key', '=', allowance.idempotencyKey)
        .execute();
      if (stored.some((row) => Number(row.response_status) === status)) continue;
    }
    changed.push(
      name.endsWith('.rows') || name.endsWith('.focus')
        ? `${name}: ${value.slice(0, 600)} → ${String(now).slice(0, 600)}`
        : `${name}: ${value} → ${now}`,
    );
  }
  return changed.length > 0
    ? [
        {
          check: 'persisted',
          message: `a rejected (${status}) request changed stored data: ${changed.join('; ')}`,
        },
      ]
    : [];
}
