import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import {
  createTestDatabase,
  DIALECTS,
  TEST_ADMIN_KEY,
  TEST_CONNECTOR_SECRET,
  type TestDatabase,
} from '../support/app.js';
import { notification, notify } from '../support/bank.js';
import { Api } from '../support/http.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import { createAccount, newPartner } from '../support/partners.js';
import {
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';

/*
 * Money in across a crash: the real server is SIGKILLed while the sponsor bank's connector has many
 * credit notifications in flight. The connector retries every session id it sent, answered or not,
 * after the restart; each must end credited exactly once (a unique index on the session id, the
 * notification row committed with the credit), whatever the crash cut off.
 */

/** Notifications kept in flight, so that some are unanswered when the kill comes. */
const IN_FLIGHT = 40;
const KILL_AFTER_ANSWERED = 60;
const ACCOUNTS = 4;
/** The connector's retries of one session id after the restart before the test gives up. */
const MAX_RETRIES = 20;

type Notification = ReturnType<typeof notification>;

interface Sent {
  body: Notification;
  /** The first answer: 'credited' with its transaction, another status, or none (the crash). */
  before?: { status: number; outcome?: string; transactionId?: string; text: string };
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref(),
    ),
  ]);

/** Signed notifications, IN_FLIGHT at a time, to random accounts until `kill` was called. */
async function notificationLoad(api: Api, accountNumbers: string[], kill: () => void): Promise<Sent[]> {
  const sent: Sent[] = [];
  let answered = 0;
  let killed = false;
  const worker = async () => {
    for (let round = 0; !killed && round < 1000; round++) {
      const entry: Sent = {
        body: notification(accountNumbers[randomInt(accountNumbers.length)]!, {
          amount_kobo: randomInt(1, 100_000_000),
          narration: `Crash load ${sent.length}`,
        }),
      };
      sent.push(entry);
      try {
        const response = await withTimeout(notify(api, entry.body), 30_000, 'a notification');
        entry.before = {
          status: response.status,
          outcome: response.body.data?.outcome,
          transactionId: response.body.data?.transaction?.id,
          text: response.text,
        };
        answered++;
      } catch {
        // No answer: the process died with it in flight.
      }
      if (!killed && answered >= KILL_AFTER_ANSWERED) {
        killed = true;
        kill();
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return sent;
}

for (const dialect of DIALECTS) {
  describe(`money in across a crash: SIGKILL with notifications in flight [${dialect.name}]`, {
    skip: dialect.skip,
    timeout: 240_000,
  }, () => {
    let database: TestDatabase | undefined;
    let handle: DatabaseHandle | undefined;
    let sink: SmtpSink | undefined;
    let server: ServerProcess | undefined;
    let env: Record<string, string>;
    let sent: Sent[] = [];
    const accounts: Array<{ id: string; account_number: string }> = [];
    /** The connector's definite answer for each session id after the restart. */
    const retried = new Map<
      string,
      { status: number; outcome?: string; transactionId?: string; text: string }
    >();

    const start = async () => {
      server = spawnServer({ ...env, PORT: String(await freePort()) });
      await waitUntilReady(server);
      return new Api(server.url);
    };

    before(
      async () => {
        database = await createTestDatabase(dialect.name);
        sink = await new SmtpSink().start();
        env = serverEnv(database, {
          LOG_LEVEL: 'warn',
          ADMIN_API_KEY: TEST_ADMIN_KEY,
          SMTP_URL: sink.url,
          BANK_CONNECTOR_SECRET: TEST_CONNECTOR_SECRET,
        });
        const api = await start();
        const partner = await newPartner({ t: { api }, sink }, 'live');
        for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createAccount({ api }, partner.liveKey));
        const crashed = server!;
        sent = await notificationLoad(
          api,
          accounts.map((account) => account.account_number),
          () => crashed.child.kill('SIGKILL'),
        );
        assert.equal(await withTimeout(crashed.exited, 15_000, 'the killed server to exit'), 'SIGKILL');
        handle = database.open();
      },
      { timeout: 120_000 },
    );

    after(async () => {
      await stopServer(server).catch(() => undefined);
      await handle?.close().catch(() => undefined);
      await sink?.stop().catch(() => undefined);
      await database?.drop();
    });

    it('was killed mid-load: notifications were credited and others were in flight', (test) => {
      const answered = sent.filter((entry) => entry.before !== undefined);
      assert.deepEqual(
        answered.filter((entry) => entry.before!.status !== 200).map((entry) => entry.before!.text),
        [],
        'no notification was refused before the crash',
      );
      assert.ok(answered.length >= KILL_AFTER_ANSWERED, `${answered.length} answered`);
      for (const entry of answered) assert.equal(entry.before!.outcome, 'credited', entry.before!.text);
      assert.ok(answered.length < sent.length, 'some notifications were in flight when the process died');
      assert.equal(new Set(sent.map((entry) => entry.body.session_id)).size, sent.length);
      test.diagnostic(`${sent.length} sent, ${answered.length} answered before the kill`);
    });

    it('after a restart, every session id retried ends 200, and those credited before are duplicates of the same transaction', async (test) => {
      const api = await start();
      for (const entry of sent) {
        const session = entry.body.session_id;
        for (let attempt = 1; attempt <= MAX_RETRIES && !retried.has(session); attempt++) {
          try {
            const response = await withTimeout(notify(api, entry.body), 30_000, `retry of ${session}`);
            if (response.status < 500) {
              retried.set(session, {
                status: response.status,
                outcome: response.body.data?.outcome,
                transactionId: response.body.data?.transaction?.id,
                text: response.text,
              });
            }
          } catch {
            // No answer: the connector tries again.
          }
          if (!retried.has(session)) await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
        }
        const answer = retried.get(session);
        assert.ok(answer, `${session}: no definite answer after ${MAX_RETRIES} tries`);
        assert.equal(answer.status, 200, `${session}: ${answer.text}`);
        assert.ok(['credited', 'duplicate'].includes(answer.outcome ?? ''), answer.text);
        if (entry.before?.outcome === 'credited') {
          assert.equal(answer.outcome, 'duplicate', `${session} was credited before the crash`);
          assert.equal(answer.transactionId, entry.before.transactionId, session);
        }
      }
      assert.equal(retried.size, sent.length);
      const unanswered = sent.filter((entry) => entry.before === undefined);
      const committed = unanswered.filter(
        (entry) => retried.get(entry.body.session_id)?.outcome === 'duplicate',
      ).length;
      test.diagnostic(
        `${unanswered.length} unanswered: ${committed} had committed before the kill, ${unanswered.length - committed} credited on retry`,
      );
    });

    it('holds exactly one ledger entry per session id, each account’s balance the sum of its notifications, the ledger balanced', async () => {
      const db = handle!.db;
      const sessions = sent.map((entry) => entry.body.session_id);
      const entries = await db
        .selectFrom('account_transactions')
        .select(['id', 'session_id', 'account_id', 'amount_kobo', 'reference'])
        .where(
          'account_id',
          'in',
          accounts.map((account) => account.id),
        )
        .execute();
      const bySession = new Map<string, typeof entries>();
      for (const row of entries) {
        const list = bySession.get(row.session_id ?? '') ?? [];
        list.push(row);
        bySession.set(row.session_id ?? '', list);
      }
      assert.deepEqual(
        [...bySession.keys()].filter((session) => !sessions.includes(session)),
        [],
        'entries of session ids nobody sent',
      );
      const accountIdOf = new Map(accounts.map((account) => [account.account_number, account.id]));
      const expected = new Map(accounts.map((account) => [account.id, 0]));
      for (const entry of sent) {
        const session = entry.body.session_id;
        const rows = bySession.get(session) ?? [];
        assert.equal(rows.length, 1, `${session}: ${rows.length} ledger entries`);
        const [row] = rows;
        const accountId = accountIdOf.get(entry.body.account_number)!;
        assert.equal(row!.account_id, accountId, session);
        assert.equal(Number(row!.amount_kobo), entry.body.amount_kobo, session);
        assert.equal(row!.reference, `NIP-${session}`);
        const answer = retried.get(session);
        if (answer) assert.equal(answer.transactionId, row!.id, `${session}: the answer names the entry`);
        expected.set(accountId, expected.get(accountId)! + entry.body.amount_kobo);
      }
      const balances = await db
        .selectFrom('virtual_accounts')
        .select(['id', 'balance_kobo'])
        .where(
          'id',
          'in',
          accounts.map((account) => account.id),
        )
        .execute();
      assert.equal(balances.length, accounts.length);
      for (const account of balances) {
        assert.equal(Number(account.balance_kobo), expected.get(account.id), `balance of ${account.id}`);
      }
      await assertLedgerBalanced(db);
    });

    it('keeps one credited notification row for every session id, naming its ledger entry', async () => {
      const db = handle!.db;
      const rows = await db
        .selectFrom('bank_credit_notifications')
        .select(['session_id', 'outcome', 'transaction_id', 'amount_kobo'])
        .execute();
      const entries = await db
        .selectFrom('account_transactions')
        .select(['id', 'session_id'])
        .where('session_id', 'is not', null)
        .execute();
      const entryOf = new Map(entries.map((entry) => [entry.session_id, entry.id]));
      for (const entry of sent) {
        const session = entry.body.session_id;
        const mine = rows.filter((row) => row.session_id === session);
        const creditedRows = mine.filter((row) => row.outcome === 'credited');
        assert.equal(creditedRows.length, 1, `${session}: ${JSON.stringify(mine)}`);
        assert.equal(creditedRows[0]!.transaction_id, entryOf.get(session), session);
        assert.equal(Number(creditedRows[0]!.amount_kobo), entry.body.amount_kobo);
        assert.deepEqual(
          mine.filter((row) => row.outcome === 'refused'),
          [],
          `${session} was never refused`,
        );
        for (const row of mine) assert.equal(row.transaction_id, entryOf.get(session), session);
      }
    });

    it('stops the restarted server on SIGTERM with exit code 0', async () => {
      assert.equal(await withTimeout(stopServer(server, 'SIGTERM'), 15_000, 'SIGTERM'), 0, server!.output());
    });
  });
}
