/**
 * The database layer's statement reuse: named statements on PostgreSQL (named-statements.ts) and the
 * compiled inserts of insertBatch (insert-batch.ts). Both only pay off if they never change what is
 * stored or read, which is what these tests hold them to, against the real databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { queryDirectly } from '../../src/platform/db/database.js';
import { type BatchInsert, insertBatch, insertBatchAtomically } from '../../src/platform/db/insert-batch.js';
import { namedStatementPool } from '../../src/platform/db/named-statements.js';
import type { Database } from '../../src/platform/db/schema.js';
import { createTestDatabase, DIALECTS, TEST_DATABASE_URL, type TestDatabase } from '../support/app.js';

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

describe('named statements [postgres]', { skip: postgres.skip }, () => {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  const named = namedStatementPool(pool);
  after(() => named.end());

  /** Runs `text` on the pool's one connection and counts that connection's prepared statements of it. */
  async function run(text: string, parameters: unknown[]) {
    const client = await named.connect();
    try {
      const { rows } = await client.query<{ n: number }>(text, parameters);
      const prepared = await client.query<{ count: string }>(
        'select count(*) from pg_prepared_statements where statement = $1',
        [text],
      );
      return { rows, prepared: Number(prepared.rows[0]!.count) };
    } finally {
      client.release();
    }
  }

  it('prepares a text with parameters on its second run, and reuses it with new values', async () => {
    const text = 'select $1::int + 1 as n';
    const first = await run(text, [1]);
    assert.deepEqual(first.rows, [{ n: 2 }]);
    assert.equal(first.prepared, 0, 'a text seen once runs unnamed');
    const second = await run(text, [41]);
    assert.deepEqual(second.rows, [{ n: 42 }]);
    assert.equal(second.prepared, 1);
    const third = await run(text, [-1]);
    assert.deepEqual(third.rows, [{ n: 0 }]);
    assert.equal(third.prepared, 1, 'prepared once per connection');
  });

  it('names a statement run on the pool directly (run) as it names those of its clients', async () => {
    const text = 'select $1::int * 2 as n';
    assert.deepEqual(await named.run(text, [2]), [{ n: 4 }]);
    assert.deepEqual(await named.run(text, [5]), [{ n: 10 }]);
    // The pool's one connection prepared it on the second run, so a client's run finds it prepared.
    const third = await run(text, [7]);
    assert.deepEqual(third.rows, [{ n: 14 }]);
    assert.equal(third.prepared, 1);
  });

  it('leaves statements without parameters unnamed', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await named.connect();
      try {
        await client.query('select 7 as n', []);
        const { rows } = await client.query<{ count: string }>(
          "select count(*) from pg_prepared_statements where statement = 'select 7 as n'",
          [],
        );
        assert.equal(rows[0]!.count, '0');
      } finally {
        client.release();
      }
    }
  });

  it('names at most 256 texts; the others keep running, unnamed', async () => {
    for (let index = 0; index < 300; index++) {
      const text = `select $1::int + ${index} as n`;
      for (let round = 0; round < 2; round++) {
        const { rows } = await run(text, [round]);
        assert.deepEqual(rows, [{ n: index + round }]);
      }
    }
    const client = await named.connect();
    try {
      const { rows } = await client.query<{ count: string }>(
        'select count(*) from pg_prepared_statements',
        [],
      );
      assert.ok(Number(rows[0]!.count) <= 256, `${rows[0]!.count} statements prepared`);
    } finally {
      client.release();
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`insertBatch's compiled inserts [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let db: Kysely<Database>;
    let close: () => Promise<void>;
    before(async () => {
      database = await createTestDatabase(dialect.name);
      const handle = database.open();
      [db, close] = [handle.db, handle.close];
      await sql`create table probe_a (id integer primary key, label text, note text default 'none', n integer)`.execute(
        db,
      );
      await sql`create table probe_b (id integer primary key, a_id integer, label text)`.execute(db);
      await sql`create table probe_c (id integer primary key, label text)`.execute(db);
      await sql`create table probe_d (id integer primary key, c_id integer, label text)`.execute(db);
    });
    after(async () => {
      await close?.();
      await database?.drop();
    });

    // Scratch tables outside the schema's types: the batch is built as the services build theirs.
    const rows = (table: string, entries: Array<Record<string, unknown>>) =>
      ({ table, rows: entries }) as unknown as BatchInsert;
    const read = async (table: string) =>
      (await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by id`.execute(db)).rows;

    it('stores each call with its own values when the shape repeats, rows with columns in any order', async () => {
      for (let call = 0; call < 3; call++) {
        await insertBatch(db, [
          rows('probe_a', [
            { id: 10 * call + 1, label: `first ${call}`, note: `a ${call}`, n: call },
            { n: 100 - call, note: `b ${call}`, label: `second ${call}`, id: 10 * call + 2 },
          ]),
        ]);
      }
      const stored = await read('probe_a');
      assert.deepEqual(
        stored.map((row) => [row['id'], row['label'], row['note'], row['n']]),
        [0, 1, 2].flatMap((call) => [
          [10 * call + 1, `first ${call}`, `a ${call}`, call],
          [10 * call + 2, `second ${call}`, `b ${call}`, 100 - call],
        ]),
      );
    });

    it('gives a missing column its default and inlines a SQL expression, also for a shape seen before', async () => {
      const plain = { id: 100, label: 'plain', note: 'given', n: 1 };
      await insertBatch(db, [rows('probe_a', [plain])]);
      await insertBatch(db, [rows('probe_a', [{ ...plain, id: 101 }])]);
      // Same columns, but one value is an expression and another row leaves a column out.
      await insertBatch(db, [rows('probe_a', [{ ...plain, id: 102, label: sql`upper('shout')` }])]);
      await insertBatch(db, [
        rows('probe_a', [
          { id: 103, label: 'no note', n: 3 },
          { id: 104, label: 'with note', note: 'here', n: 4 },
        ]),
      ]);
      await insertBatch(db, [rows('probe_a', [{ id: 105, label: 'undefined note', note: undefined, n: 5 }])]);
      const stored = (await read('probe_a')).filter((row) => Number(row['id']) >= 100);
      assert.deepEqual(
        stored.map((row) => [row['id'], row['label'], row['note'], row['n']]),
        [
          [100, 'plain', 'given', 1],
          [101, 'plain', 'given', 1],
          [102, 'SHOUT', 'given', 1],
          // Kysely writes DEFAULT for a column another row of the insert has; SQLite's VALUES has no
          // DEFAULT, so there Kysely writes NULL (as it did before inserts were compiled once).
          [103, 'no note', dialect.name === 'sqlite' ? null : 'none', 3],
          [104, 'with note', 'here', 4],
          [105, 'undefined note', 'none', 5],
        ],
      );
    });

    it('reuses the SQL of a shape with sql expressions, each call with its own parameters', async () => {
      const text = (value: string) => sql`cast(${value} as text)`;
      for (let call = 0; call < 3; call++) {
        await insertBatch(db, [
          rows('probe_a', [
            {
              id: 400 + call,
              label: sql`${text('L')} || ${text(String(call))}`,
              note: sql`case when ${sql`${call} > 0`} then ${text(`pos ${call}`)} else ${text('zero')} end`,
              n: call,
            },
          ]),
        ]);
      }
      // The same columns with other expressions: shapes of their own, not the SQL above.
      await insertBatch(db, [
        rows('probe_a', [{ id: 410, label: sql`upper(${text('x')})`, note: 'a', n: 0 }]),
      ]);
      await insertBatch(db, [
        rows('probe_a', [{ id: 411, label: sql`lower(${text('Y')})`, note: 'b', n: 0 }]),
      ]);
      await insertBatch(db, [rows('probe_a', [{ id: 412, label: sql.lit('literal one'), note: 'c', n: 0 }])]);
      await insertBatch(db, [rows('probe_a', [{ id: 413, label: sql.lit('literal two'), note: 'd', n: 0 }])]);
      const stored = (await read('probe_a')).filter(
        (row) => Number(row['id']) >= 400 && Number(row['id']) < 500,
      );
      assert.deepEqual(
        stored.map((row) => [row['id'], row['label'], row['note']]),
        [
          [400, 'L0', 'zero'],
          [401, 'L1', 'pos 1'],
          [402, 'L2', 'pos 2'],
          [410, 'X', 'a'],
          [411, 'y', 'b'],
          [412, 'literal one', 'c'],
          [413, 'literal two', 'd'],
        ],
      );
    });

    it("runs a statement directly on the root handle only, never on a transaction's handle", async () => {
      const direct = queryDirectly(db, 'select 1 as n', []);
      assert.ok(direct, 'the root handle runs it directly');
      assert.deepEqual(await direct, [{ n: 1 }]);
      await db.transaction().execute(async (trx) => {
        assert.equal(
          queryDirectly(trx, 'select 1 as n', []),
          undefined,
          'inside a transaction, Kysely runs it',
        );
      });
    });

    it('writes a batch of several tables all or nothing, also once its inserts are compiled', async () => {
      const batch = (call: number, childId: number) => [
        rows('probe_c', [{ id: 500 + call, label: `parent ${call}` }]),
        rows('probe_d', [{ id: childId, c_id: 500 + call, label: `child ${call}` }]),
      ];
      // The first call compiles the shapes; the second runs them as compiled.
      await insertBatchAtomically(db, batch(0, 600));
      await insertBatchAtomically(db, batch(1, 601));
      // The child's id is taken: the parent written before it in the batch must not stay.
      for (const call of [2, 3]) {
        await assert.rejects(insertBatchAtomically(db, batch(call, 600)), /unique|duplicate|constraint/i);
      }
      const parents = (await read('probe_c')).filter((row) => Number(row['id']) < 700);
      assert.deepEqual(
        parents.map((row) => row['id']),
        [500, 501],
      );
      const children = (await read('probe_d')).filter((row) => Number(row['id']) < 700);
      assert.deepEqual(
        children.map((row) => [row['id'], row['c_id']]),
        [
          [600, 500],
          [601, 501],
        ],
      );
    });

    it('writes inside an open transaction, and is undone with it', async () => {
      const batch = (id: number) => [
        rows('probe_c', [{ id, label: 'in a transaction' }]),
        rows('probe_d', [{ id, c_id: id, label: 'in a transaction' }]),
      ];
      await insertBatchAtomically(db, batch(700));
      let outside: Promise<void> | undefined;
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await insertBatch(trx, batch(701));
          // The root handle, while the transaction is open, does not write in it: on SQLite it waits
          // for the transaction to end, on PostgreSQL it writes on another connection.
          outside = insertBatchAtomically(db, batch(702));
          await sql`select 1`.execute(trx);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      // That write's own end, not a guess at how long it takes (under load 50 ms was not enough).
      await outside;
      const stored = (await read('probe_d')).filter((row) => Number(row['id']) >= 700);
      assert.deepEqual(
        stored.map((row) => row['id']),
        [700, 702],
      );
    });

    it('writes several tables in one batch, call after call', async () => {
      for (let call = 0; call < 3; call++) {
        await insertBatch(db, [
          rows('probe_a', [{ id: 200 + call, label: `parent ${call}`, note: 'x', n: call }]),
          rows('probe_b', [
            { id: 300 + 2 * call, a_id: 200 + call, label: `child ${call}.1` },
            { id: 301 + 2 * call, a_id: 200 + call, label: `child ${call}.2` },
          ]),
        ]);
      }
      const children = await read('probe_b');
      assert.deepEqual(
        children.map((row) => [row['id'], row['a_id'], row['label']]),
        [0, 1, 2].flatMap((call) => [
          [300 + 2 * call, 200 + call, `child ${call}.1`],
          [301 + 2 * call, 200 + call, `child ${call}.2`],
        ]),
      );
    });
  });
}
