import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import {
  createTestDatabase,
  DIALECTS,
  startApp,
  TEST_CONNECTOR_SECRET,
  type TestDatabase,
} from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { notification, notify } from '../support/bank.js';
import { type FakeBank, type Reply, startFakeBank } from '../support/fake-bank.js';
import type { Api } from '../support/http.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import { beneficiaryNumber, fastTransferEnv } from '../support/live-transfers.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { accountUrl, NAME_ENQUIRY, TRANSFERS } from '../support/paths.js';
import { SmtpSink } from '../support/smtp-sink.js';

/*
 * Live transfers from two app instances on one PostgreSQL, to one fake sponsor bank: the hold is
 * taken under the account's row lock, so concurrent transfers never spend more than the account
 * holds, and the workers of both instances lease each transfer once, so the bank gets each
 * reference once.
 */

type Instance = Awaited<ReturnType<typeof startApp>>;

const BANK_CODE = '000013';
const NIP_FEE_UP_TO_5000_KOBO = 1075;

for (const dialect of DIALECTS) {
  const skip =
    dialect.skip ||
    (dialect.name === 'sqlite'
      ? 'SQLite serves one process: two instances in one test process would wait on each other in busy_timeout'
      : false);

  describe(`live transfers from two instances on one database [${dialect.name}]`, { skip }, () => {
    let bank: FakeBank;
    let sink: SmtpSink;
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let one: Instance;
    let two: Instance;
    let live: PartnerAt<'live'>;

    before(async () => {
      bank = await startFakeBank({ secret: TEST_CONNECTOR_SECRET });
      sink = await new SmtpSink().start();
      database = await createTestDatabase(dialect.name);
      const env = { SMTP_URL: sink.url, ...fastTransferEnv(bank.url) };
      one = await startApp(database, { env });
      two = await startApp(database, { env });
      handle = database.open();
      live = await newPartner({ t: one, sink }, 'live');
    });
    after(async () => {
      await Promise.all([one?.stop(), two?.stop()]);
      await bank?.close();
      await handle?.close();
      await database?.drop();
      await sink?.stop();
    });

    const apis = (): Api[] => [one.api, two.api];
    const token = () => ({ token: live.liveKey });

    async function fundedAccount(kobo: number) {
      const account = await createAccount(one, live.liveKey);
      const credited = await notify(one.api, notification(account.account_number, { amount_kobo: kobo }), {
        nowMs: one.clock.now(),
      });
      assert.equal(credited.status, 200, credited.text);
      return account as { id: string; account_number: string };
    }

    async function nameEnquiryRef(accountNumber: string) {
      const response = await two.api.post(
        NAME_ENQUIRY,
        { bank_code: BANK_CODE, account_number: accountNumber },
        token(),
      );
      assert.equal(response.status, 200, response.text);
      return response.body.data.name_enquiry_ref as string;
    }

    const transfersOf = (accountIds: readonly string[]) =>
      handle.db
        .selectFrom('transfers')
        .select(['id', 'status', 'session_id', 'amount_kobo', 'fee_kobo', 'created_at', 'updated_at'])
        .where('account_id', 'in', accountIds)
        .execute();

    it('accepts exactly 9 of 30 concurrent ₦1,000 transfers from ₦10,000 across both instances: 21 INSUFFICIENT_FUNDS, never below zero', async (t) => {
      const funded = 1_000_000;
      const each = 100_000 + NIP_FEE_UP_TO_5000_KOBO;
      const account = await fundedAccount(funded);
      const accountNumber = beneficiaryNumber();
      // The bank never decides: every hold stays for the whole test.
      bank.script(accountNumber, { transfer: { responseCode: '09' }, query: { responseCode: '09' } });
      const ref = await nameEnquiryRef(accountNumber);

      let sampling = true;
      let lowest = Number.POSITIVE_INFINITY;
      let samples = 0;
      const sampler = (async () => {
        while (sampling) {
          const row = await handle.db
            .selectFrom('virtual_accounts')
            .select(['balance_kobo', 'held_kobo'])
            .where('id', '=', account.id)
            .executeTakeFirstOrThrow();
          lowest = Math.min(lowest, Number(row.balance_kobo) - Number(row.held_kobo));
          samples++;
        }
      })();
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          apis()[index % 2]!.post(
            TRANSFERS,
            {
              source_account_number: account.account_number,
              amount: 1000,
              bank_code: BANK_CODE,
              account_number: accountNumber,
              reference: `burst-${index}`,
              name_enquiry_ref: ref,
            },
            token(),
          ),
        ),
      );
      const accepted = responses.filter((response) => response.status === 202);
      const refused = responses.filter((response) => response.status !== 202);
      const ids = accepted.map((response) => response.body.data.id as string);
      await until('the accepted transfers to reach the bank', () => ids.every((id) => bank.posts(id) >= 1));
      sampling = false;
      await sampler;

      assert.equal(accepted.length, 9, responses.map((response) => response.status).join(','));
      assert.equal(refused.length, 21);
      for (const response of refused) assertError(response, 409, 'INSUFFICIENT_FUNDS');
      assert.ok(samples > 0);
      assert.ok(lowest >= 0, `the available balance went to ${lowest}`);

      const stored = await transfersOf([account.id]);
      assert.deepEqual(stored.map((row) => row.id).sort(), [...ids].sort(), 'no refused transfer was stored');
      for (const row of stored) assert.equal(row.status, 'processing');
      for (const id of ids) assert.equal(bank.posts(id), 1, `transfer ${id} POSTed once`);
      const view = await one.api.get(accountUrl(account.account_number), token());
      assert.equal(view.status, 200, view.text);
      assert.equal(view.body.data.balance_kobo, funded);
      assert.equal(view.body.data.available_balance_kobo, funded - 9 * each);
      await assertLedgerBalanced(handle.db);
      t.diagnostic(
        `9 accepted, 21 refused; lowest available balance seen ${lowest} kobo in ${samples} samples taken during the burst`,
      );
    });

    it('settles 100 transfers sent through both instances, each POSTed to the bank once', async (t) => {
      const count = 100;
      const perSource = 25;
      const amountKobo = 10_000;
      const funded = 1_000_000;
      const sources = await Promise.all(
        Array.from({ length: count / perSource }, () => fundedAccount(funded)),
      );
      const accountNumber = beneficiaryNumber();
      const replies: Reply[] = Array.from({ length: count }, () => ({
        responseCode: '00',
        delayMs: randomInt(0, 101),
      }));
      bank.script(accountNumber, { transfer: replies });
      const ref = await nameEnquiryRef(accountNumber);
      const answered = (instance: Instance) =>
        // Each POST's outcome as the instance logged it: answered, or (a busy machine past the connector
        // timeout) no answer, the transfer then settled by its status query.
        instance.logs.filter(
          (line) =>
            line.includes('"path":"/transfers"') &&
            (line.includes('bank connector answered') || line.includes('bank connector gave no answer')),
        ).length;
      const answeredBefore = [answered(one), answered(two)];

      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const responses = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          apis()[index % 2]!.post(
            TRANSFERS,
            {
              source_account_number: sources[index % sources.length]!.account_number,
              amount: amountKobo / 100,
              bank_code: BANK_CODE,
              account_number: accountNumber,
              reference: `many-${index}`,
              name_enquiry_ref: ref,
            },
            token(),
          ),
        ),
      );
      assert.deepEqual(
        responses.filter((response) => response.status !== 202).map((response) => response.text),
        [],
      );
      const acceptedMs = performance.now() - started;
      const ids = responses.map((response) => response.body.data.id as string);
      const sourceIds = sources.map((source) => source.id);
      const rows = await until(
        `all ${count} transfers to be successful`,
        async () => {
          const current = await transfersOf(sourceIds);
          const failed = current.filter((row) => row.status === 'failed' || row.status === 'reversed');
          assert.deepEqual(failed, [], 'no transfer fails on a bank that answers 00');
          return current.length === count && current.every((row) => row.status === 'successful') && current;
        },
        60_000,
        10,
      );
      const settledMs = performance.now() - started;
      // Both instances, the fake bank and this client share one process: its CPU time bounds the rate.
      const cpu = process.cpuUsage(cpuBefore);
      const cpuShare = Math.round(((cpu.user + cpu.system) / 1000 / settledMs) * 100);

      // A second POST would come from a worker that lost track: give it the chance before counting.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        ids.filter((id) => bank.posts(id) !== 1),
        [],
        'transfers not POSTed exactly once',
      );
      for (const row of rows) {
        assert.equal(row.session_id, bank.transfers.get(row.id)?.session_id, 'the bank’s session id');
        assert.match(String(row.session_id), /^\d{30}$/);
      }
      assert.equal(bank.signatureFailures, 0);
      for (const source of sources) {
        const view = await two.api.get(accountUrl(source.account_number), token());
        const left = funded - perSource * (amountKobo + NIP_FEE_UP_TO_5000_KOBO);
        assert.equal(view.body.data.balance_kobo, left, view.text);
        assert.equal(view.body.data.available_balance_kobo, left, view.text);
      }
      await assertLedgerBalanced(handle.db);

      // An instance logs the bank's answer after it settled the transfer, through its stdout: on a
      // busy machine the last lines arrive after the rows say successful (once 99 of 100 were read).
      const sentNow = () => [answered(one) - answeredBefore[0]!, answered(two) - answeredBefore[1]!];
      await until(
        `the instances to log their ${count} POSTs`,
        async () => sentNow()[0]! + sentNow()[1]! >= count,
        10_000,
        20,
      ).catch(() => undefined);
      const sent = sentNow();
      assert.equal(sent[0]! + sent[1]!, count, `the POSTs logged by the instances: ${sent.join(' + ')}`);
      assert.ok(
        sent.every((n) => n > 0),
        `both instances' workers sent transfers: ${sent.join(' + ')}`,
      );
      const firstCreated = Math.min(...rows.map((row) => Number(row.created_at)));
      const lastSettled = Math.max(...rows.map((row) => Number(row.updated_at)));
      const perSecond = (ms: number) => (count / (ms / 1000)).toFixed(1);
      t.diagnostic(
        `${count} transfers accepted in ${Math.round(acceptedMs)} ms, all settled ${Math.round(settledMs)} ms after the first request: ${perSecond(settledMs)} settled/s end to end; ${perSecond(lastSettled - firstCreated)} settled/s from the first transfer stored to the last settled (${lastSettled - firstCreated} ms); POSTs per instance ${sent.join(' + ')}; bank delay 0–100 ms; the one test process (both instances, fake bank, client) used ${cpuShare}% of a core`,
      );
    });
  });
}
