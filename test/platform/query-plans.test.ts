import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { sourceAndEnquiry } from '../../src/modules/transfers/transfers.repository.js';
import { listEntries, postToAccount } from '../../src/modules/virtual-accounts/ledger.repository.js';
import {
  countAccounts,
  findAccountByKey,
  findAccountByNumber,
  listAccounts,
} from '../../src/modules/virtual-accounts/virtual-accounts.repository.js';
import {
  claimLanes,
  leaseScopeEvents,
  listEvents,
  purgeOldEvents,
  skipWithoutEndpoint,
} from '../../src/modules/webhooks/webhooks.repository.js';
import { listAuditEvents } from '../../src/platform/audit/audit.repository.js';
import type { Database } from '../../src/platform/db/schema.js';
import { DIALECTS, useApp } from '../support/app.js';
import { type PlanSummary, postgresPlans, sqlitePlan, statementsOf } from '../support/query-plans.js';

/** Rows per seeded table: enough that a scan and a range read cost differently, seeded in one statement each. */
const ROWS = 20_000;
const PARTNERS = 200;
const BIG_TABLES = ['virtual_accounts', 'outbox_events', 'audit_events', 'account_transactions'] as const;
const T0 = 1_700_000_000_000;
const SEED_BANK = '999';

/** Numbers 1..ROWS as a recursive CTE: the same SQL on both dialects. */
const numbers = sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(ROWS)})`;
/** Of partner a's rows (every 200th), every tenth is `slot`: a rare value among a's, and among all. */
const tenth = (slot: number) => sql`(i / 200) % 10 = ${sql.lit(slot)}`;
/** One audit event in 1,000: the operators' share of the trail (it has no partner scope). */
const rare = (slot: number) => sql`(i % 100 = 0 and (i / 100) % 10 = ${sql.lit(slot)})`;

/**
 * PARTNERS partners and ROWS rows in each big table, in one statement each. Partner `a`, the one
 * the queries ask about, holds one row in 200 of every table, as a partner among many; its live
 * environment has accounts but no events. Each column has about as many distinct values as in
 * production (the generic plans estimate from them), and each filter value the queries use matches
 * a tenth of a's rows (audit events: one in 1,000 of all). Ids are ordered as creation, as the app's are.
 */
async function seed(
  db: Kysely<Database>,
  options: { analyze: boolean; backlog: boolean } = { analyze: true, backlog: true },
): Promise<number> {
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(PARTNERS)})
    insert into partners (email, business_name, legal_business_name, phone, password_hash,
      onboarding_status, created_at, updated_at)
    select 'seed-' || cast(i as text) || '@example.com', 'Seed ' || cast(i as text),
      'Seed ' || cast(i as text) || ' Ltd', '+2348000000000', 'x', 'in_progress', ${sql.lit(T0)}, ${sql.lit(T0)}
    from n`.execute(db);
  const { a } = await db
    .selectFrom('partners')
    .select((eb) => eb.fn.min('id').as('a'))
    .where('email', 'like', 'seed-%')
    .executeTakeFirstOrThrow();
  const partner = sql`case when i % 200 = 0 then ${sql.lit(a)} else ${sql.lit(a + 1)} + i % ${sql.lit(PARTNERS - 1)} end`;
  await sql`${numbers}
    insert into virtual_accounts (id, partner_id, environment, account_number, bank_code, bank_name,
      account_name, currency, status, first_name, last_name, customer_email, phone, created_at, balance_kobo)
    select 'seed-va-' || cast(100000 + i as text), ${partner},
      case when i % 400 = 0 or i % 7 = 1 then 'live' else 'sandbox' end, cast(8000000000 + i as text),
      ${SEED_BANK}, 'Seed Bank', 'Seed Row' || cast(i as text), 'NGN',
      case when ${tenth(3)} then 'inactive' when ${tenth(4)} then 'closed' else 'active' end,
      'Seed', 'Row' || cast(i as text), 'seed' || cast(i as text) || '@example.com', '+2348000000000',
      ${sql.lit(T0)} + i * 1000, 0
    from n`.execute(db);
  await sql`${numbers}
    insert into account_transactions (id, account_id, partner_id, environment, type, kind, amount_kobo,
      balance_after_kobo, reference, created_at)
    select 'seed-tx-' || cast(100000 + i as text), 'seed-va-' || cast(100001 + i % 1000 as text),
      ${partner}, 'sandbox', 'credit', 'inbound_transfer', 100, 100 * i, 'SEED-' || cast(i as text),
      ${sql.lit(T0)} + i * 1000
    from n`.execute(db);
  await sql`${numbers}
    insert into outbox_events (id, partner_id, environment, type, payload, created_at, status, attempts,
      next_attempt_at)
    select 'seed-ev-' || cast(100000 + i as text), ${partner}, 'sandbox',
      case when ${tenth(3)} then 'transfer.failed' else 'seed.type_' || cast(i % 19 as text) end, '{}',
      ${sql.lit(T0)} + i * 1000, case when ${tenth(5)} then 'failed' else 'delivered' end, 1,
      ${sql.lit(T0)} + i * 1000
    from n`.execute(db);
  // A backlog: one event in ten of the other partners' still pending, so the webhook worker's
  // partial index on pending events is not empty (an empty one is, rightly, the cheapest to walk).
  if (options.backlog)
    await sql`${numbers}
    insert into outbox_events (id, partner_id, environment, type, payload, created_at, status, attempts,
      next_attempt_at)
    select 'seed-pe-' || cast(100000 + i as text), ${partner}, 'sandbox', 'seed.type_1', '{}',
      ${sql.lit(T0)} + i * 1000, 'pending', 0, ${sql.lit(T0)} + i * 1000
    from n where i % 200 <> 0 and i % 10 = 0`.execute(db);
  await sql`${numbers}
    insert into audit_events (id, partner_id, actor_type, actor_id, action, created_at)
    select 'seed-au-' || cast(100000 + i as text), ${partner},
      case when ${rare(7)} then 'operator' when i % 3 = 0 then 'partner' when i % 3 = 1 then 'api_key'
        else 'system' end,
      case when ${rare(7)} then 'seed-operator-' || cast(i / 1000 % 2 as text) else cast(${partner} as text) end,
      case when ${rare(1)} then 'operator.signed_in' else 'seed.action_' || cast(i % 50 as text) end,
      ${sql.lit(T0)} + i * 1000
    from n`.execute(db);
  if (options.analyze) await sql`analyze`.execute(db);
  return a;
}

interface PlanCase {
  name: string;
  run: (db: Kysely<Database>) => Promise<unknown>;
  /** The index each statement must read (a prefix of its name), when one index is the point. */
  index?: { sqlite?: string; postgres?: string };
  /**
   * Why reading an index whole in its order, skipping rows that do not match, is expected (it stops at
   * the page's last row). Without it, only a read with no condition to skip rows on may walk an index.
   */
  walk?: string;
  /** Why a sort is expected, and of how few rows. */
  sorts?: string;
}

for (const dialect of DIALECTS) {
  describe(`query plans over ${ROWS} rows a table [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let a: number;
    const big = { sandbox: () => ({ partnerId: a, environment: 'sandbox' as const }) };

    before(async () => {
      a = await seed(suite.t.db);
    });

    async function plansOf(query: CompiledQuery): Promise<Array<[string, PlanSummary]>> {
      if (dialect.name === 'sqlite') return [['plan', await sqlitePlan(suite.t.db, query, BIG_TABLES)]];
      const schema = suite.t.database.pgSchema;
      assert.ok(schema);
      const { custom, generic } = await postgresPlans(schema, query, BIG_TABLES);
      return [
        ['custom plan', custom],
        ['generic plan', generic],
      ];
    }

    async function check(test: PlanCase) {
      const statements = await statementsOf(dialect.name, test.run);
      for (const statement of statements) {
        for (const [kind, plan] of await plansOf(statement)) {
          const where = `${test.name}, ${kind}:\n${statement.sql}\n${plan.text}`;
          const problems = plan.problems.filter(
            (problem) =>
              !(test.walk && problem.startsWith('walk')) &&
              !(test.sorts && /^(Sort|Incremental Sort|USE TEMP B-TREE)/.test(problem)),
          );
          assert.deepEqual(problems, [], where);
          assert.ok(plan.indexes.length > 0, `no index read: ${where}`);
          const index = test.index?.[dialect.name];
          if (index)
            assert.ok(
              plan.indexes.some((name) => name.startsWith(index)),
              `${index} not read: ${where}`,
            );
        }
      }
    }

    const number = '8000000200'; // i = 200: partner a, sandbox
    const cases: PlanCase[] = [
      {
        name: 'an account by number (get, transactions, statement, simulated credit)',
        run: (db) => findAccountByNumber(db, big.sandbox(), number),
        index: { postgres: 'virtual_accounts_number_idx', sqlite: 'virtual_accounts_number_prefix_idx' },
      },
      {
        name: 'the source account of a transfer by number',
        run: (db) => sourceAndEnquiry(db, big.sandbox(), number, undefined),
        index: { postgres: 'virtual_accounts_number_idx', sqlite: 'virtual_accounts_number_prefix_idx' },
      },
      {
        name: "a live credit's account by bank and number (read, post, lock)",
        run: async (db) => {
          const key = { bankCode: SEED_BANK, accountNumber: '8000000400', environment: 'live' as const };
          await findAccountByKey(db, key);
          await db
            .transaction()
            .execute((trx) => postToAccount(trx, key, { type: 'credit', amountKobo: 1 }, T0));
        },
        index: { postgres: 'virtual_accounts_number_unique', sqlite: 'sqlite_autoindex_virtual_accounts_' },
      },
      {
        name: "an account's transactions, first page and next",
        run: async (db) => {
          await listEntries(db, 'seed-va-100001', { limit: 20 });
          await listEntries(db, 'seed-va-100001', { limit: 20, beforeId: 'seed-tx-110000' });
        },
      },
      ...(
        [
          ['no filter', {}],
          ['status', { status: 'inactive' }],
          ['email', { email: 'seed200@example.com' }],
          ['created range', { createdFrom: T0 + 1_000_000, createdTo: T0 + 2_000_000 }],
          ['search', { search: 'row11' }],
        ] as const
      ).flatMap(([name, filter]) => [
        {
          name: `account list by ${name}, newest and oldest first, and its total`,
          run: async (db: Kysely<Database>) => {
            await listAccounts(db, big.sandbox(), { ...filter, order: 'desc', limit: 20 });
            await listAccounts(db, big.sandbox(), {
              ...filter,
              order: 'asc',
              limit: 20,
              after: 'seed-va-105000',
            });
            await countAccounts(db, big.sandbox(), filter, 10_000);
          },
          ...(name === 'email'
            ? {
                index: {
                  postgres: 'virtual_accounts_email_idx',
                  sqlite: 'virtual_accounts_email_prefix_idx',
                },
                ...(dialect.name === 'sqlite'
                  ? { sorts: "an e-mail's accounts (one open, any closed) are sorted by id" }
                  : {}),
              }
            : name === 'status'
              ? { index: { postgres: 'virtual_accounts_status_idx', sqlite: 'virtual_accounts_status_idx' } }
              : name === 'search'
                ? { sorts: 'the union of four prefix ranges (2026-11-28-03) is sorted by id' }
                : {}),
        },
      ]),
      ...(
        [
          ['no filter', {}, 'outbox_events_scope_idx'],
          ['a rare type', { type: 'transfer.failed' }, 'outbox_events_type_idx'],
          ['delivery status', { deliveryStatus: 'failed' }, 'outbox_events_partner_status_idx'],
          [
            'created range',
            { createdFrom: T0 + 1_000_000, createdTo: T0 + 2_000_000 },
            'outbox_events_scope_idx',
          ],
        ] as const
      ).map(([name, filter, index]) => ({
        name: `events by ${name}, first page and next`,
        run: async (db: Kysely<Database>) => {
          await listEvents(db, big.sandbox(), { ...filter, limit: 20 });
          await listEvents(db, big.sandbox(), { ...filter, limit: 20, beforeId: 'seed-ev-110000' });
        },
        index: { postgres: index, sqlite: index },
      })),
      {
        name: 'events of a live environment that has none',
        run: (db) => listEvents(db, { partnerId: a, environment: 'live' }, { limit: 20 }),
        index: { postgres: 'outbox_events_scope_idx', sqlite: 'outbox_events_scope_idx' },
      },
      {
        name: "the webhook worker's pass (free lanes with due events, a lane's batch)",
        run: async (db) => {
          const now = T0 + 1_000_000;
          await claimLanes(db, { now, until: now + 30_000, token: 'seed-lane', limit: 20 });
          await leaseScopeEvents(db, big.sandbox(), {
            now,
            until: now + 30_000,
            token: 'seed-lease',
            limit: 5,
            exclude: ['seed-ev-100001'],
            laneToken: 'seed-lane',
          });
        },
        index: { postgres: 'outbox_events_pending_due_idx', sqlite: 'outbox_events_pending_due_idx' },
        sorts:
          'the endpoints with a due event, least recently served first: one row an endpoint, never one an event',
      },
      {
        name: "the webhook worker's sweep (due events of an environment without an endpoint, once a minute)",
        run: (db) => skipWithoutEndpoint(db, T0 + 1_000_000, 'no endpoint'),
      },
      {
        name: 'housekeeping: settled events past 30 days',
        run: (db) => purgeOldEvents(db, T0 + 1_000_000),
        index: { postgres: 'outbox_events_settled_created_idx', sqlite: 'outbox_events_settled_created_idx' },
      },
      ...(
        [
          ['no filter', () => ({}), undefined],
          ['company', () => ({ partnerId: a }), 'audit_events_partner_idx'],
          ['action', () => ({ action: 'operator.signed_in' }), 'audit_events_action_idx'],
          ['actor type', () => ({ actorType: 'operator' as const }), 'audit_events_actor_type_idx'],
          ['actor id', () => ({ actorId: 'seed-operator-1' }), 'audit_events_actor_idx'],
          ['created range', () => ({ createdFrom: T0 + 1_000_000, createdTo: T0 + 2_000_000 }), undefined],
        ] as const
      ).map(([name, filter, index]) => ({
        name: `audit events by ${name}, first page and next`,
        run: async (db: Kysely<Database>) => {
          await listAuditEvents(db, { ...filter(), limit: 50 });
          await listAuditEvents(db, { ...filter(), limit: 50, beforeId: 'seed-au-110000' });
        },
        ...(index ? { index: { postgres: index, sqlite: index } } : {}),
        ...(name === 'created range'
          ? {
              walk: 'no index on created_at: the window is found along the id order, from the newest row back',
            }
          : name === 'no filter'
            ? { walk: 'the newest page of the whole trail' }
            : {}),
      })),
    ];

    for (const test of cases) it(`${test.name}: a range of an index, no scan, no sort`, () => check(test));
  });
}

describe('SQLite gathers statistics by itself', () => {
  const suite = useApp('sqlite');

  it('housekeeping analyzes tables that grew (PRAGMA optimize), so the planner knows their sizes', async () => {
    await seed(suite.t.db, { analyze: false, backlog: false });
    const analyzed = async () =>
      (
        await sql<{ tbl: string; stat: string }>`select tbl, stat from sqlite_stat1`.execute(suite.t.db)
      ).rows.filter((row) => (BIG_TABLES as readonly string[]).includes(row.tbl));
    const before = await analyzed();
    assert.ok(
      before.every((row) => Number(row.stat.split(' ')[0]) < ROWS),
      `statistics of the seeded rows before housekeeping: ${JSON.stringify(before)}`,
    );
    await suite.t.app.housekeeping();
    // The seeded events are years old: the purge (off its index) took them all.
    const events = await suite.t.db.selectFrom('outbox_events').select('id').execute();
    assert.equal(events.length, 0);
    const after = await analyzed();
    for (const table of BIG_TABLES.filter((name) => name !== 'outbox_events')) {
      const rows = after.filter((row) => row.tbl === table).map((row) => Number(row.stat.split(' ')[0]));
      // A partial index counts only its rows: the table's size is the largest.
      assert.equal(Math.max(0, ...rows), ROWS, `${table}: ${JSON.stringify(after)}`);
    }
  });
});
