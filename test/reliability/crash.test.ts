import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { isValidNuban } from '../../src/modules/virtual-accounts/nuban.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createTestDatabase, DIALECTS, TEST_ADMIN_KEY, type TestDatabase } from '../support/app.js';
import { until } from '../support/assertions.js';
import { customerBody } from '../support/factories.js';
import { Api, listAll } from '../support/http.js';
import { createAccount, createApiKey, newPartner } from '../support/partners.js';
import { CREATE_ACCOUNT, creditUrl, VIRTUAL_ACCOUNTS, WEBHOOK } from '../support/paths.js';
import {
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * SECURITY.md "Lost events or writes on crash": the real server is SIGKILLed in the middle of a write
 * load; after a restart on the same data every acknowledged write is there, nothing is half-written
 * (account without its event or audit row, ledger row without its account), and the outbox drains.
 */

/**
 * Requests kept in flight. The kill comes when the client has read an answer, and the test wants some
 * of the others unanswered by then: a server faster than its loaded client (SQLite answers in a
 * fraction of a millisecond) answered all 20 once in CI; 48 would take it several times longer.
 */
const IN_FLIGHT = 48;
const KILL_AFTER_ACKNOWLEDGED = 60;
const SANDBOX_CODE = '999999';

interface AckedAccount {
  id: string;
  account_number: string;
  email: string;
}

interface AckedCredit {
  transactionId: string;
  accountNumber: string;
  amountKobo: number;
}

/** What the client knows after the crash: acknowledged writes, and writes whose answer was lost. */
interface LoadOutcome {
  accounts: AckedAccount[];
  credits: AckedCredit[];
  unansweredCreates: string[];
  unansweredCredits: Array<{ accountNumber: string; amountKobo: number }>;
  /** Any HTTP answer other than 2xx during the load (there should be none). */
  refused: string[];
}

const naira = (kobo: number) => `${Math.floor(kobo / 100)}.${String(kobo % 100).padStart(2, '0')}`;

/**
 * ~IN_FLIGHT concurrent account creates and credits until `kill` has been called; resolves when every
 * request in flight has settled.
 */
async function writeLoad(api: Api, key: string, seedAccounts: AckedAccount[], kill: () => void) {
  const outcome: LoadOutcome = {
    accounts: [],
    credits: [],
    unansweredCreates: [],
    unansweredCredits: [],
    refused: [],
  };
  const numbers = seedAccounts.map((account) => account.account_number);
  let killed = false;
  const maybeKill = () => {
    if (!killed && outcome.accounts.length + outcome.credits.length >= KILL_AFTER_ACKNOWLEDGED) {
      killed = true;
      kill();
    }
  };
  const worker = async (index: number) => {
    for (let round = 0; !killed && round < 1000; round++) {
      if ((index + round) % 2 === 0) {
        const body = customerBody();
        try {
          const response = await api.post(CREATE_ACCOUNT, body, { token: key });
          if (response.status !== 201) outcome.refused.push(response.text);
          else {
            const account = response.body.data;
            outcome.accounts.push({
              id: account.id,
              account_number: account.account_number,
              email: String(body['email']),
            });
            numbers.push(account.account_number);
          }
        } catch {
          outcome.unansweredCreates.push(String(body['email']));
        }
      } else {
        const accountNumber = numbers[randomInt(numbers.length)]!;
        const amountKobo = randomInt(1, 10_000_000);
        try {
          const response = await api.post(
            creditUrl(accountNumber),
            { amount: naira(amountKobo) },
            { token: key },
          );
          if (response.status !== 201) outcome.refused.push(response.text);
          else {
            outcome.credits.push({
              transactionId: response.body.data.transaction.id,
              accountNumber,
              amountKobo,
            });
          }
        } catch {
          outcome.unansweredCredits.push({ accountNumber, amountKobo });
        }
      }
      maybeKill();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, index) => worker(index)));
  return outcome;
}

/** Removes one occurrence of each of `taken` from `pool`; returns what could not be matched. */
function unmatched(taken: number[], pool: number[]): number[] {
  const left = [...pool];
  return taken.filter((value) => {
    const at = left.indexOf(value);
    if (at === -1) return true;
    left.splice(at, 1);
    return false;
  });
}

for (const dialect of DIALECTS) {
  describe(`crash safety: SIGKILL under write load [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let sink: SmtpSink;
    let receiver: WebhookReceiver;
    let server: ServerProcess | undefined;
    let env: Record<string, string>;
    let load: LoadOutcome;
    let seed: AckedAccount[];
    let partnerId: number;
    let key: string;

    const start = async () => {
      server = spawnServer({ ...env, PORT: String(await freePort()) });
      await waitUntilReady(server);
      return new Api(server.url);
    };

    before(async () => {
      database = await createTestDatabase(dialect.name);
      sink = await new SmtpSink().start();
      receiver = await new WebhookReceiver().start();
      env = serverEnv(database, {
        LOG_LEVEL: 'warn',
        ADMIN_API_KEY: TEST_ADMIN_KEY,
        SMTP_URL: sink.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_RETRY_BASE_MS: '100',
        // Leases last 3 × this, so the killed process's leases expire within the test.
        WEBHOOK_TIMEOUT_MS: '1000',
      });
      const api = await start();
      const partner = await newPartner({ t: { api }, sink }, 'signed-in');
      partnerId = partner.companyId;
      key = (await createApiKey({ api }, partner.token, 'sandbox')).key;
      const endpoint = await api.put(WEBHOOK, { url: receiver.url }, { token: key });
      assert.equal(endpoint.status, 201, endpoint.text);
      receiver.secret = endpoint.body.data.secret;
      seed = [];
      for (let i = 0; i < 3; i++) {
        const account = await createAccount({ api }, key);
        seed.push({ ...account, email: account.customer.email });
      }

      const crashed = server!;
      load = await writeLoad(api, key, seed, () => crashed.child.kill('SIGKILL'));
      assert.equal(await crashed.exited, 'SIGKILL');
      handle = database.open();
    });
    after(async () => {
      await stopServer(server);
      await handle?.close();
      await receiver?.stop();
      await sink?.stop();
      await database?.drop();
    });

    it('was killed mid-load: writes were acknowledged and others were in flight', () => {
      assert.deepEqual(load.refused, [], 'no write was refused before the crash');
      assert.ok(load.accounts.length + load.credits.length >= KILL_AFTER_ACKNOWLEDGED);
      assert.ok(load.accounts.length > 0 && load.credits.length > 0);
      assert.ok(
        load.unansweredCreates.length + load.unansweredCredits.length > 0,
        'some requests were in flight when the process died',
      );
    });

    it('opens the same data cleanly after the crash', async () => {
      if (dialect.name === 'sqlite') {
        const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(handle.db);
        assert.deepEqual(rows, [{ integrity_check: 'ok' }]);
        const orphans = await sql`pragma foreign_key_check`.execute(handle.db);
        assert.deepEqual(orphans.rows, []);
      }
      const api = await start();
      const ready = await api.get('/readyz');
      assert.equal(ready.status, 200, ready.text);
    });

    it('keeps every acknowledged account with its exact number', async () => {
      const api = new Api(server!.url);
      const listed = new Map(
        (await listAll({ api }, VIRTUAL_ACCOUNTS, key)).map((account) => [
          account.account_number as string,
          account,
        ]),
      );
      for (const account of [...seed, ...load.accounts]) {
        const found = listed.get(account.account_number);
        assert.ok(found, `acknowledged account ${account.account_number} is missing`);
        assert.equal(found.id, account.id);
        assert.equal(found.customer.email, account.email);
        assert.ok(isValidNuban(SANDBOX_CODE, account.account_number));
      }
      // Anything else committed belongs to a create whose answer was lost.
      const acknowledged = new Set([...seed, ...load.accounts].map((account) => account.account_number));
      for (const [number, account] of listed) {
        if (acknowledged.has(number)) continue;
        assert.ok(load.unansweredCreates.includes(account.customer.email), `unexpected account ${number}`);
      }
      assert.equal(new Set(listed.keys()).size, listed.size);
    });

    it('keeps every acknowledged credit; balances are the acknowledged sums plus only credits whose answer was lost', async () => {
      const api = new Api(server!.url);
      const ledger = await handle.db
        .selectFrom('account_transactions as t')
        .leftJoin('virtual_accounts as a', 'a.id', 't.account_id')
        .select(['t.id', 't.amount_kobo', 't.account_id', 'a.account_number'])
        .where('t.partner_id', '=', partnerId)
        .execute();
      const byId = new Map(ledger.map((row) => [row.id, row]));
      assert.deepEqual(
        ledger.filter((row) => row.account_number === null),
        [],
        'ledger rows without their account',
      );
      for (const credit of load.credits) {
        const row = byId.get(credit.transactionId);
        assert.ok(row, `acknowledged credit ${credit.transactionId} is missing`);
        assert.equal(Number(row.amount_kobo), credit.amountKobo);
        assert.equal(row.account_number, credit.accountNumber);
      }
      const accounts = await listAll({ api }, VIRTUAL_ACCOUNTS, key);
      const acknowledgedIds = new Set(load.credits.map((credit) => credit.transactionId));
      for (const account of accounts) {
        const rows = ledger.filter((row) => row.account_number === account.account_number);
        const sum = rows.reduce((total, row) => total + Number(row.amount_kobo), 0);
        assert.equal(account.balance_kobo, sum, `${account.account_number}: balance is the ledger sum`);
        const acknowledged = load.credits
          .filter((credit) => credit.accountNumber === account.account_number)
          .reduce((total, credit) => total + credit.amountKobo, 0);
        assert.ok(sum >= acknowledged, `${account.account_number}: ${sum} < acknowledged ${acknowledged}`);
        const extra = rows
          .filter((row) => !acknowledgedIds.has(row.id))
          .map((row) => Number(row.amount_kobo));
        const lost = load.unansweredCredits
          .filter((credit) => credit.accountNumber === account.account_number)
          .map((credit) => credit.amountKobo);
        assert.deepEqual(unmatched(extra, lost), [], `${account.account_number}: credits nobody sent`);
      }
    });

    it('wrote the outbox event and the audit row of every committed account and credit', async () => {
      const accounts = await handle.db
        .selectFrom('virtual_accounts')
        .select(['id', 'account_number'])
        .where('partner_id', '=', partnerId)
        .execute();
      const transactions = await handle.db
        .selectFrom('account_transactions')
        .select(['id', 'reference'])
        .where('partner_id', '=', partnerId)
        .execute();
      const events = await handle.db
        .selectFrom('outbox_events')
        .select(['type', 'payload'])
        .where('partner_id', '=', partnerId)
        .execute();
      const audit = await handle.db
        .selectFrom('audit_events')
        .select(['action', 'target_id', 'metadata'])
        .where('partner_id', '=', partnerId)
        .execute();
      assert.ok(accounts.length >= seed.length + load.accounts.length);
      const createdEvents = new Set(
        events
          .filter((event) => event.type === 'virtual_account.created')
          .map((event) => JSON.parse(event.payload).id as string),
      );
      const creditedEvents = new Set(
        events
          .filter((event) => event.type === 'virtual_account.credited')
          .map((event) => JSON.parse(event.payload).transaction.id as string),
      );
      const createdAudit = new Set(
        audit.filter((row) => row.action === 'virtual_account.created').map((row) => row.target_id),
      );
      const creditedAudit = new Set(
        audit
          .filter((row) => row.action === 'virtual_account.credited')
          .map((row) => JSON.parse(row.metadata ?? '{}').reference as string),
      );
      for (const account of accounts) {
        assert.ok(createdEvents.has(account.id), `account ${account.account_number} has no outbox event`);
        assert.ok(createdAudit.has(account.id), `account ${account.account_number} has no audit row`);
      }
      for (const transaction of transactions) {
        assert.ok(creditedEvents.has(transaction.id), `credit ${transaction.id} has no outbox event`);
        assert.ok(creditedAudit.has(transaction.reference), `credit ${transaction.id} has no audit row`);
      }
      assert.equal(createdEvents.size, accounts.length, 'no event for an account that does not exist');
      assert.equal(creditedEvents.size, transactions.length, 'no event for a credit that does not exist');
    });

    it('delivers every outbox event after the restart, each account’s creation verified by signature', async () => {
      const accounts = await handle.db
        .selectFrom('virtual_accounts')
        .select(['id'])
        .where('partner_id', '=', partnerId)
        .execute();
      const outbox = () =>
        handle.db
          .selectFrom('outbox_events')
          .select(['id', 'type', 'status'])
          .where('partner_id', '=', partnerId)
          .where('environment', '=', 'sandbox')
          .execute();
      const events = await until(
        'every sandbox event to be delivered',
        async () => {
          const rows = await outbox();
          return rows.every((row) => row.status === 'delivered') && rows;
        },
        40_000,
        200,
      );
      const received = new Map<string, unknown>();
      for (const delivery of receiver.received) {
        assert.ok(delivery.verified, `delivery ${delivery.id} fails signature verification`);
        received.set(delivery.id, delivery.verified);
      }
      for (const event of events)
        assert.ok(received.has(event.id), `event ${event.id} (${event.type}) never arrived`);
      const createdIds = new Set(
        [...received.values()]
          .map((payload) => payload as { type: string; data: { id?: string } })
          .filter((payload) => payload.type === 'virtual_account.created')
          .map((payload) => payload.data.id),
      );
      for (const account of accounts)
        assert.ok(createdIds.has(account.id), `no verified webhook for ${account.id}`);
    });

    it('stops the restarted server on SIGTERM with exit code 0', async () => {
      assert.equal(await stopServer(server, 'SIGTERM'), 0, server!.output());
    });
  });
}
