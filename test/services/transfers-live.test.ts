import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newWebhookSecret } from '../../src/platform/crypto/standard-webhooks.js';
import { newId } from '../../src/platform/crypto/tokens.js';
import { type AppContext, DIALECTS, TEST_CONNECTOR_SECRET, useApp } from '../support/app.js';
import { assertError, retryAfterSeconds, UUID, until } from '../support/assertions.js';
import { notification, notify, postSigned } from '../support/bank.js';
import {
  type FakeBank,
  fakeSessionId,
  type Replies,
  type Reply,
  startFakeBank,
} from '../support/fake-bank.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import {
  beneficiaryNumber,
  CONNECTOR_TIMEOUT_MS,
  fastTransferEnv,
  REQUERY_MS,
} from '../support/live-transfers.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  accountUrl,
  BANK_TRANSFER_UPDATES,
  creditUrl,
  EVENTS,
  NAME_ENQUIRY,
  TRANSFERS,
  transferUrl,
} from '../support/paths.js';

/*
 * Live transfers through the sponsor bank's connector (issue 29), against a fake bank that answers,
 * stalls and drops as scripted per beneficiary account: name enquiry, the one POST of each
 * transfer, the status queries that follow an answer not known, and the connector's later word
 * (transfer-updates). Every test checks the ledger's invariant and that the bank got each of our
 * references exactly once.
 */

/** The first status query waits out the send: max(requery, timeout + 1 s). */
const FIRST_QUERY_MS = Math.max(REQUERY_MS, CONNECTOR_TIMEOUT_MS + 1000);

const BANK_CODE = '000013';
const FUNDED_KOBO = 20_000_000;

let serial = 0;
const reference = (label: string) => `${label}-${Date.now()}-${++serial}`;

// biome-ignore lint/suspicious/noExplicitAny: transfers and accounts as the API returns them.
type Json = any;

/** The GET /transfers/{reference} status queries the fake bank received for a transfer. */
const queriesOf = (bank: FakeBank, id: string) =>
  bank.requests.filter((request) => request.method === 'GET' && request.path === `/transfers/${id}`);
const nameEnquiriesOf = (bank: FakeBank, accountNumber: string) =>
  bank.requests.filter(
    (request) =>
      request.path === '/name-enquiry' &&
      (request.body as { account_number?: string } | undefined)?.account_number === accountNumber,
  );
const firstPostOf = (bank: FakeBank, id: string) =>
  bank.requests.find(
    (request) =>
      request.method === 'POST' &&
      request.path === '/transfers' &&
      (request.body as { reference?: string } | undefined)?.reference === id,
  );

for (const dialect of DIALECTS) {
  describe(`live transfers through the bank connector [${dialect.name}]`, { skip: dialect.skip }, () => {
    let bank: FakeBank;
    before(async () => {
      bank = await startFakeBank({ secret: TEST_CONNECTOR_SECRET });
    });
    const suite: AppContext = useApp(dialect.name, () => ({ env: fastTransferEnv(bank.url) }));
    // Registered after useApp: the app (and its worker) stops before the bank does.
    after(() => bank?.close());

    let live: PartnerAt<'live'>;
    before(async () => {
      live = await newPartner(suite, 'live');
    });

    const token = () => ({ token: live.liveKey });

    /** A live account holding `kobo`, credited by a signed notification of the sponsor bank. */
    async function fundedAccount(kobo = FUNDED_KOBO): Promise<Json> {
      const account = await createAccount(suite.t, live.liveKey);
      const credited = await notify(
        suite.t.api,
        notification(account.account_number, { amount_kobo: kobo }),
        {
          nowMs: suite.t.clock.now(),
        },
      );
      assert.equal(credited.status, 200, credited.text);
      return account;
    }

    async function balances(accountNumber: string) {
      const response = await suite.t.api.get(accountUrl(accountNumber), token());
      assert.equal(response.status, 200, response.text);
      return {
        balance: response.body.data.balance_kobo as number,
        available: response.body.data.available_balance_kobo as number,
      };
    }

    const nameEnquiry = (accountNumber: string, bankCode = BANK_CODE) =>
      suite.t.api.post(NAME_ENQUIRY, { bank_code: bankCode, account_number: accountNumber }, token());

    /** POST /services/transfers that must be accepted: 202 pending, the transfer. */
    async function send(
      account: Json,
      accountNumber: string,
      body: Record<string, unknown> = {},
    ): Promise<Json> {
      const response = await suite.t.api.post(
        TRANSFERS,
        {
          source_account_number: account.account_number,
          amount: 1000,
          bank_code: BANK_CODE,
          account_number: accountNumber,
          reference: reference('live'),
          ...body,
        },
        token(),
      );
      assert.equal(response.status, 202, response.text);
      assert.equal(response.body.data.status, 'pending', response.text);
      return response.body.data;
    }

    async function fetchTransfer(id: string): Promise<Json> {
      const response = await suite.t.api.get(transferUrl(id), token());
      assert.equal(response.status, 200, response.text);
      return response.body.data;
    }

    /** Waits for the transfer to be `status`; fails at once if it ends in another final state. */
    async function settled(id: string, status: string, timeoutMs = 10_000): Promise<Json> {
      const dead = status === 'failed' ? ['successful', 'reversed'] : ['failed'];
      return until(
        `transfer ${id} to be ${status}`,
        async () => {
          const transfer = await fetchTransfer(id);
          assert.ok(!dead.includes(transfer.status), `expected ${status}, got ${JSON.stringify(transfer)}`);
          return transfer.status === status && transfer;
        },
        timeoutMs,
        25,
      );
    }

    const entriesOf = (transferId: string) =>
      suite.t.db
        .selectFrom('account_transactions')
        .select(['kind', 'type', 'amount_kobo'])
        .where('transfer_id', '=', transferId)
        .execute()
        .then((rows) =>
          rows
            .map((row) => ({ kind: row.kind, type: row.type, amount_kobo: Number(row.amount_kobo) }))
            .sort((a, b) => a.kind.localeCompare(b.kind)),
        );

    const rowOf = (id: string) =>
      suite.t.db.selectFrom('transfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    /** The events of `type` about this transfer, in this partner's live environment. */
    async function eventsOf(type: string, transferId: string): Promise<Json[]> {
      const response = await suite.t.api.get(`${EVENTS}?type=${type}&limit=100`, token());
      assert.equal(response.status, 200, response.text);
      return response.body.data.items.filter((event: Json) => event.data.id === transferId);
    }

    const historyOf = (transfer: Json) => transfer.status_history.map((change: Json) => change.status);

    /** What every test ends with: the ledger adds up, the bank signed nothing wrong, one POST a transfer. */
    async function checkBankAndLedger(...transferIds: string[]) {
      for (const id of transferIds) assert.equal(bank.posts(id), 1, `the bank got transfer ${id} once`);
      assert.equal(bank.signatureFailures, 0, 'every call to the bank was signed right');
      await assertLedgerBalanced(suite.t.db);
    }

    /** A transfer the bank holds as pending for ever: processing, its amount and fee held. */
    async function processingTransfer(account: Json, body: Record<string, unknown> = {}) {
      const accountNumber = beneficiaryNumber();
      bank.script(accountNumber, { transfer: { responseCode: '09' }, query: { responseCode: '09' } });
      const accepted = await send(account, accountNumber, body);
      await until('the transfer to reach the bank', () => bank.posts(accepted.id) === 1);
      await settled(accepted.id, 'processing');
      return accepted;
    }

    describe('name enquiry', () => {
      it('answers the account name the bank gives and passes the bank’s reference back with the transfer', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        bank.script(accountNumber, {
          nameEnquiry: { accountName: 'ADA OKAFOR', nameEnquiryRef: 'NE-BANK-7731' },
        });
        const response = await nameEnquiry(accountNumber);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.status, 'success');
        const found = response.body.data;
        assert.equal(found.bank_code, BANK_CODE);
        assert.equal(found.bank_name, 'Guaranty Trust Bank');
        assert.equal(found.account_number, accountNumber);
        assert.equal(found.account_name, 'ADA OKAFOR');
        assert.equal(typeof found.name_enquiry_ref, 'string');
        const asked = nameEnquiriesOf(bank, accountNumber);
        assert.equal(asked.length, 1);
        assert.deepEqual(asked[0]!.body, { bank_code: BANK_CODE, account_number: accountNumber });
        assert.equal(asked[0]!.signatureError, undefined);

        const accepted = await send(account, accountNumber, { name_enquiry_ref: found.name_enquiry_ref });
        assert.equal(accepted.beneficiary.account_name, 'ADA OKAFOR');
        await settled(accepted.id, 'successful');
        const sent = bank.transfers.get(accepted.id);
        assert.ok(sent, 'the bank holds the transfer under our transfer id');
        assert.equal(sent.body['name_enquiry_ref'], 'NE-BANK-7731');
        assert.equal(sent.body['account_name'], 'ADA OKAFOR');
        assert.equal(nameEnquiriesOf(bank, accountNumber).length, 1, 'the ref spared a second enquiry');
        await checkBankAndLedger(accepted.id);
      });

      for (const code of ['25', '07']) {
        it(`is 422 BENEFICIARY_NOT_FOUND when the bank answers ${code}, and a transfer to it holds nothing`, async () => {
          const account = await fundedAccount();
          const accountNumber = beneficiaryNumber();
          bank.script(accountNumber, { nameEnquiry: { responseCode: code } });
          assertError(await nameEnquiry(accountNumber), 422, 'BENEFICIARY_NOT_FOUND');
          const refused = await suite.t.api.post(
            TRANSFERS,
            {
              source_account_number: account.account_number,
              amount: 1000,
              bank_code: BANK_CODE,
              account_number: accountNumber,
              reference: reference('ne'),
            },
            token(),
          );
          assertError(refused, 422, 'BENEFICIARY_NOT_FOUND');
          assert.equal(nameEnquiriesOf(bank, accountNumber).length, 2, 'a refusal is not cached');
          assert.deepEqual(await balances(account.account_number), {
            balance: FUNDED_KOBO,
            available: FUNDED_KOBO,
          });
          const rows = await suite.t.db
            .selectFrom('transfers')
            .select('id')
            .where('account_id', '=', account.id)
            .execute();
          assert.deepEqual(rows, []);
          await checkBankAndLedger();
        });
      }

      const unavailable: [string, Reply][] = [
        ['91', { responseCode: '91' }],
        ['96', { responseCode: '96' }],
        ['no answer within the timeout', { delayMs: CONNECTOR_TIMEOUT_MS + 400 }],
        ['a dropped connection', { drop: true }],
        ['HTTP 502', { status: 502 }],
        ['a body that is not JSON', { body: 'not json' }],
      ];
      for (const [what, reply] of unavailable) {
        it(`is 503 BANK_UNAVAILABLE with Retry-After on ${what}, and caches nothing`, async () => {
          const accountNumber = beneficiaryNumber();
          bank.script(accountNumber, { nameEnquiry: [reply, {}] });
          const started = performance.now();
          const response = await nameEnquiry(accountNumber);
          assertError(response, 503, 'BANK_UNAVAILABLE');
          assert.ok(retryAfterSeconds(response) >= 1);
          assert.ok(performance.now() - started < CONNECTOR_TIMEOUT_MS + 2000, 'answered within the timeout');
          const again = await nameEnquiry(accountNumber);
          assert.equal(again.status, 200, `the next enquiry asks the bank again: ${again.text}`);
          assert.equal(nameEnquiriesOf(bank, accountNumber).length, 2);
          await checkBankAndLedger();
        });
      }

      it('reuses an answer for 30 minutes: a second enquiry and a transfer without a ref never reach the bank', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        bank.script(accountNumber, {
          nameEnquiry: [
            { accountName: 'FIRST ANSWER', nameEnquiryRef: 'NE-FIRST' },
            { accountName: 'SECOND ANSWER', nameEnquiryRef: 'NE-SECOND' },
          ],
        });
        const first = await nameEnquiry(accountNumber);
        const second = await nameEnquiry(accountNumber);
        assert.equal(first.status, 200, first.text);
        assert.equal(second.status, 200, second.text);
        assert.equal(second.body.data.account_name, 'FIRST ANSWER');
        assert.equal(second.body.data.name_enquiry_ref, first.body.data.name_enquiry_ref);
        const accepted = await send(account, accountNumber);
        assert.equal(accepted.beneficiary.account_name, 'FIRST ANSWER');
        await settled(accepted.id, 'successful');
        assert.equal(nameEnquiriesOf(bank, accountNumber).length, 1, 'the bank saw one enquiry');
        assert.equal(bank.transfers.get(accepted.id)?.body['name_enquiry_ref'], 'NE-FIRST');

        // 31 minutes on, the answer is stale: the bank is asked again.
        suite.t.clock.advance(31 * 60 * 1000);
        try {
          const later = await nameEnquiry(accountNumber);
          assert.equal(later.status, 200, later.text);
          assert.equal(later.body.data.account_name, 'SECOND ANSWER');
          assert.equal(nameEnquiriesOf(bank, accountNumber).length, 2);
        } finally {
          suite.t.clock.advance(-31 * 60 * 1000);
        }
        await checkBankAndLedger(accepted.id);
      });
    });

    describe('a transfer handed to the bank', () => {
      it('00: holds amount and fee while the bank answers, then debits transfer and fee with the bank’s session id', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        const session = fakeSessionId();
        bank.script(accountNumber, {
          nameEnquiry: { accountName: 'BOLA TINUBU-ADEYEMI', nameEnquiryRef: 'NE-00-REF' },
          // Slow but within the timeout: the hold is visible while the bank thinks.
          transfer: { responseCode: '00', sessionId: session, delayMs: 300 },
        });
        const found = await nameEnquiry(accountNumber);
        assert.equal(found.status, 200, found.text);
        const partnerReference = reference('pay');
        const accepted = await send(account, accountNumber, {
          amount: 20_000,
          narration: 'Invoice 77',
          reference: partnerReference,
          name_enquiry_ref: found.body.data.name_enquiry_ref,
        });
        assert.match(accepted.id, UUID);
        assert.equal(accepted.reference, partnerReference);
        assert.equal(accepted.amount_kobo, 2_000_000);
        assert.equal(accepted.fee_kobo, 2688);
        assert.equal(accepted.session_id, null);
        assert.equal(accepted.failure_reason, null);
        assert.equal(accepted.environment, 'live');
        assert.deepEqual(accepted.beneficiary, {
          account_name: 'BOLA TINUBU-ADEYEMI',
          account_number: accountNumber,
          bank_code: BANK_CODE,
          bank_name: 'Guaranty Trust Bank',
        });

        await until('the transfer to reach the bank', () => bank.posts(accepted.id) === 1);
        const during = await fetchTransfer(accepted.id);
        assert.equal(during.status, 'processing', 'recorded processing before the bank answered');
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO,
          available: FUNDED_KOBO - 2_000_000 - 2688,
        });

        const done = await settled(accepted.id, 'successful');
        assert.equal(done.session_id, session);
        assert.equal(done.failure_reason, null);
        assert.deepEqual(historyOf(done), ['pending', 'processing', 'successful']);
        assert.deepEqual(bank.transfers.get(accepted.id)?.body, {
          reference: accepted.id,
          amount_kobo: 2_000_000,
          source_account_number: account.account_number,
          source_account_name: account.account_name,
          bank_code: BANK_CODE,
          account_number: accountNumber,
          account_name: 'BOLA TINUBU-ADEYEMI',
          name_enquiry_ref: 'NE-00-REF',
          narration: 'Invoice 77',
        });
        const post = firstPostOf(bank, accepted.id);
        assert.equal(post?.signatureError, undefined);
        assert.match(String(post?.headers['webhook-signature']), /^v1,/);
        assert.deepEqual(await entriesOf(accepted.id), [
          { kind: 'fee', type: 'debit', amount_kobo: 2688 },
          { kind: 'transfer', type: 'debit', amount_kobo: 2_000_000 },
        ]);
        const left = FUNDED_KOBO - 2_000_000 - 2688;
        assert.deepEqual(await balances(account.account_number), { balance: left, available: left });
        const events = await eventsOf('transfer.successful', accepted.id);
        assert.equal(events.length, 1);
        assert.equal(events[0].data.status, 'successful');
        assert.equal(events[0].data.session_id, session);
        assert.equal(queriesOf(bank, accepted.id).length, 0, 'a definite answer needs no status query');
        await checkBankAndLedger(accepted.id);
      });

      const notKnownYet: [string, Replies][] = [
        ['09', { responseCode: '09' }],
        ['no answer within the timeout', { delayMs: CONNECTOR_TIMEOUT_MS + 1000 }],
        ['a dropped connection after the bank took it', { drop: true }],
        ['HTTP 502 after the bank took it', { status: 502 }],
      ];
      for (const [what, reply] of notKnownYet) {
        it(`stays processing on ${what}, then the status query's 00 settles it, sent once`, async () => {
          const account = await fundedAccount();
          const accountNumber = beneficiaryNumber();
          const session = fakeSessionId();
          bank.script(accountNumber, {
            transfer: reply,
            query: { responseCode: '00', sessionId: session },
          });
          const accepted = await send(account, accountNumber, { amount: 3000 });
          await until('the transfer to reach the bank', () => bank.posts(accepted.id) === 1);
          const waiting = await settled(accepted.id, 'processing');
          assert.equal(waiting.session_id, null);
          assert.deepEqual(await balances(account.account_number), {
            balance: FUNDED_KOBO,
            available: FUNDED_KOBO - 300_000 - 1075,
          });

          const done = await settled(accepted.id, 'successful', 10_000);
          assert.equal(done.session_id, session);
          assert.deepEqual(historyOf(done), ['pending', 'processing', 'successful']);
          assert.ok(queriesOf(bank, accepted.id).length >= 1, 'settled by a status query');
          assert.deepEqual(await entriesOf(accepted.id), [
            { kind: 'fee', type: 'debit', amount_kobo: 1075 },
            { kind: 'transfer', type: 'debit', amount_kobo: 300_000 },
          ]);
          const left = FUNDED_KOBO - 300_000 - 1075;
          assert.deepEqual(await balances(account.account_number), { balance: left, available: left });
          assert.equal((await eventsOf('transfer.successful', accepted.id)).length, 1);
          await checkBankAndLedger(accepted.id);
        });
      }

      it('05: fails with the code in failure_reason and releases the hold, no entry', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        bank.script(accountNumber, { transfer: { responseCode: '05' } });
        const accepted = await send(account, accountNumber);
        const failed = await settled(accepted.id, 'failed');
        assert.match(failed.failure_reason, /\b05\b/);
        assert.equal(failed.session_id, null);
        assert.deepEqual(historyOf(failed), ['pending', 'processing', 'failed']);
        assert.deepEqual(await entriesOf(accepted.id), []);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO,
          available: FUNDED_KOBO,
        });
        const events = await eventsOf('transfer.failed', accepted.id);
        assert.equal(events.length, 1);
        assert.equal(events[0].data.failure_reason, failed.failure_reason);
        assert.equal(queriesOf(bank, accepted.id).length, 0);
        await checkBankAndLedger(accepted.id);
      });

      it('25: fails as beneficiary account not found and releases the hold', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        bank.script(accountNumber, { transfer: { responseCode: '25' } });
        const accepted = await send(account, accountNumber);
        const failed = await settled(accepted.id, 'failed');
        assert.equal(failed.failure_reason, 'beneficiary account not found (25)');
        assert.deepEqual(await entriesOf(accepted.id), []);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO,
          available: FUNDED_KOBO,
        });
        await checkBankAndLedger(accepted.id);
      });

      it('a POST the bank never took and whose answer was lost: the query’s 25 fails it, the hold released', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        bank.script(accountNumber, { transfer: { drop: true, accept: false } });
        const accepted = await send(account, accountNumber);
        await until('the transfer to reach the bank', () => bank.posts(accepted.id) === 1);
        assert.equal(bank.transfers.has(accepted.id), false, 'the bank holds nothing');
        const failed = await settled(accepted.id, 'failed');
        assert.match(failed.failure_reason, /\b25\b/);
        assert.ok(queriesOf(bank, accepted.id).length >= 1, 'failed on the status query');
        assert.deepEqual(await entriesOf(accepted.id), []);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO,
          available: FUNDED_KOBO,
        });
        await checkBankAndLedger(accepted.id);
      });

      it('pending at the bank for ever: stays processing and held, asking again at doubling intervals', async () => {
        const account = await fundedAccount();
        const accepted = await processingTransfer(account);
        const attempts: number[] = [];
        const delays: number[] = [];
        let previous = (await rowOf(accepted.id)).query_attempts;
        for (let query = 1; query <= 3; query++) {
          await until(
            `status query ${query} at the bank`,
            () => queriesOf(bank, accepted.id).length >= query,
          );
          const row = await until(
            `the answer to status query ${query} to be recorded`,
            async () => {
              const current = await rowOf(accepted.id);
              return current.query_attempts > previous && current;
            },
            5_000,
            5,
          );
          previous = row.query_attempts;
          assert.equal(row.status, 'processing');
          assert.notEqual(row.next_query_at, null, 'another query is due');
          attempts.push(row.query_attempts);
          delays.push(Number(row.next_query_at) - Number(row.updated_at));
        }
        assert.deepEqual(
          attempts.slice(1).map((value, index) => value - attempts[index]!),
          [1, 1],
          `query_attempts rises by one a query: ${attempts.join(', ')}`,
        );
        assert.ok(delays[0]! >= REQUERY_MS, `the first wait is at least TRANSFER_REQUERY_MS: ${delays[0]}`);
        assert.deepEqual(
          delays,
          [delays[0], delays[0]! * 2, delays[0]! * 4],
          `next_query_at backs off, doubling: ${delays.join(', ')} ms`,
        );
        const queries = queriesOf(bank, accepted.id);
        const gaps = queries.slice(1).map((query, index) => query.at - queries[index]!.at);
        for (let index = 1; index < gaps.length; index++) {
          assert.ok(gaps[index]! > gaps[index - 1]!, `the gaps between queries grow: ${gaps.join(', ')} ms`);
        }
        const transfer = await fetchTransfer(accepted.id);
        assert.equal(transfer.status, 'processing');
        assert.equal(transfer.failure_reason, null);
        assert.deepEqual(historyOf(transfer), ['pending', 'processing']);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO,
          available: FUNDED_KOBO - 100_000 - 1075,
        });
        assert.deepEqual(await entriesOf(accepted.id), []);
        await checkBankAndLedger(accepted.id);
      });

      it('asks its first status query no sooner than max(TRANSFER_REQUERY_MS, BANK_CONNECTOR_TIMEOUT_MS + 1 s) after the POST', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        // The POST times out (the bank may still be working on it); the query then finds it done.
        bank.script(accountNumber, { transfer: { delayMs: CONNECTOR_TIMEOUT_MS + 1000 } });
        const accepted = await send(account, accountNumber);
        await settled(accepted.id, 'successful');
        // Measured from the row's sent_at (the app's clock, written as the POST left; this test
        // leaves the clock unmoved), not from the fake bank's receipt of the POST, which a loaded
        // machine delays by up to seconds and which the worker's schedule does not start from.
        const sentAt = Number((await rowOf(accepted.id)).sent_at);
        assert.ok(firstPostOf(bank, accepted.id), 'the bank got the POST');
        const firstQuery = queriesOf(bank, accepted.id)[0]!;
        assert.ok(
          firstQuery.at - sentAt >= FIRST_QUERY_MS,
          `the first query came ${firstQuery.at - sentAt} ms after sent_at, not ≥ ${FIRST_QUERY_MS} ms`,
        );
        await checkBankAndLedger(accepted.id);
      });

      it('counts status queries in query_attempts, not the POST: 0 while the first query is still to come', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        // A long pause before the first query: the row is read in it.
        bank.script(accountNumber, { transfer: { responseCode: '09' }, query: { responseCode: '09' } });
        const accepted = await send(account, accountNumber);
        await until("the POST's answer to be recorded", async () => {
          const row = await rowOf(accepted.id);
          return row.response_code === '09' && row;
        });
        const row = await rowOf(accepted.id);
        assert.equal(queriesOf(bank, accepted.id).length, 0, 'no status query yet');
        assert.equal(
          row.query_attempts,
          0,
          `query_attempts is ${row.query_attempts} before any status query`,
        );
        await checkBankAndLedger(accepted.id);
      });
    });

    describe('the connector’s word: POST /bank/transfer-updates', () => {
      it('applies successful once (then unchanged), and refuses failed after it with 409', async () => {
        const account = await fundedAccount();
        const accepted = await processingTransfer(account);
        const session = fakeSessionId();
        const update = { reference: accepted.id, status: 'successful' as const, session_id: session };
        const applied = await bank.pushUpdate(suite.t.url, update);
        assert.equal(applied.status, 200, JSON.stringify(applied.body));
        const body = applied.body as Json;
        assert.equal(body.data.outcome, 'applied');
        assert.equal(body.data.transfer.id, accepted.id);
        assert.equal(body.data.transfer.status, 'successful');
        assert.equal(body.data.transfer.session_id, session);
        const repeat = await bank.pushUpdate(suite.t.url, update);
        assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
        assert.equal((repeat.body as Json).data.outcome, 'unchanged');
        assert.equal((repeat.body as Json).data.transfer.status, 'successful');

        const contradiction = await bank.pushUpdate(suite.t.url, {
          reference: accepted.id,
          status: 'failed',
          response_code: '51',
        });
        assert.equal(contradiction.status, 409, JSON.stringify(contradiction.body));
        assert.equal((contradiction.body as Json).error_code, 'TRANSFER_STATE_CONFLICT');

        const transfer = await fetchTransfer(accepted.id);
        assert.equal(transfer.status, 'successful');
        assert.deepEqual(historyOf(transfer), ['pending', 'processing', 'successful']);
        assert.deepEqual(await entriesOf(accepted.id), [
          { kind: 'fee', type: 'debit', amount_kobo: 1075 },
          { kind: 'transfer', type: 'debit', amount_kobo: 100_000 },
        ]);
        assert.equal((await eventsOf('transfer.successful', accepted.id)).length, 1);
        await checkBankAndLedger(accepted.id);
      });

      it('applies failed once, releasing the hold, and refuses successful after it with 409', async () => {
        const account = await fundedAccount();
        const accepted = await processingTransfer(account);
        const update = {
          reference: accepted.id,
          status: 'failed' as const,
          response_code: '51',
          reason: 'insufficient funds at the settlement account',
        };
        const applied = await bank.pushUpdate(suite.t.url, update);
        assert.equal(applied.status, 200, JSON.stringify(applied.body));
        assert.equal((applied.body as Json).data.outcome, 'applied');
        assert.equal((applied.body as Json).data.transfer.status, 'failed');
        assert.equal((applied.body as Json).data.transfer.failure_reason, update.reason);
        const repeat = await bank.pushUpdate(suite.t.url, update);
        assert.equal(repeat.status, 200);
        assert.equal((repeat.body as Json).data.outcome, 'unchanged');
        const contradiction = await bank.pushUpdate(suite.t.url, {
          reference: accepted.id,
          status: 'successful',
        });
        assert.equal(contradiction.status, 409, JSON.stringify(contradiction.body));
        assert.equal((contradiction.body as Json).error_code, 'TRANSFER_STATE_CONFLICT');
        assert.equal((await fetchTransfer(accepted.id)).status, 'failed');
        assert.deepEqual(await entriesOf(accepted.id), []);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO,
          available: FUNDED_KOBO,
        });
        assert.equal((await eventsOf('transfer.failed', accepted.id)).length, 1);
        await checkBankAndLedger(accepted.id);
      });

      it('is 404 for an unknown reference, a sandbox transfer and a transfer not yet handed to the bank', async () => {
        const { t } = suite;
        const unknown = await bank.pushUpdate(t.url, { reference: newId(), status: 'successful' });
        assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
        assert.equal((unknown.body as Json).error_code, 'NOT_FOUND');

        const sandboxAccount = await createAccount(t, live.sandboxKey);
        const credit = await t.api.post(
          creditUrl(sandboxAccount.account_number),
          { amount: 10_000 },
          { token: live.sandboxKey },
        );
        assert.equal(credit.status, 201, credit.text);
        const sandboxTransfer = await t.api.post(
          TRANSFERS,
          {
            source_account_number: sandboxAccount.account_number,
            amount: 100,
            bank_code: BANK_CODE,
            account_number: '0123456711',
            reference: reference('sbx'),
          },
          { token: live.sandboxKey },
        );
        assert.equal(sandboxTransfer.status, 202, sandboxTransfer.text);
        const sandboxId = sandboxTransfer.body.data.id as string;
        const sandbox = await bank.pushUpdate(t.url, { reference: sandboxId, status: 'failed' });
        assert.equal(sandbox.status, 404, JSON.stringify(sandbox.body));
        assert.equal(bank.posts(sandboxId), 0, 'a sandbox transfer never reaches the sponsor bank');

        // A pending transfer, as the instant between acceptance and the worker's send: seeded, with
        // its hold, and no next_query_at, so no worker takes it.
        const account = await fundedAccount();
        const model = await rowOf((await processingTransfer(account)).id);
        const pendingId = newId();
        await t.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('transfers')
            .values({
              ...model,
              id: pendingId,
              reference: reference('seeded'),
              status: 'pending',
              sent_at: null,
              next_query_at: null,
              query_attempts: 0,
              response_code: null,
            })
            .execute();
          await trx
            .updateTable('virtual_accounts')
            .set((eb) => ({
              held_kobo: eb('held_kobo', '+', Number(model.amount_kobo) + Number(model.fee_kobo)),
            }))
            .where('id', '=', model.account_id)
            .execute();
        });
        const pending = await bank.pushUpdate(t.url, { reference: pendingId, status: 'successful' });
        assert.equal(pending.status, 404, JSON.stringify(pending.body));
        assert.equal((await rowOf(pendingId)).status, 'pending');
        await checkBankAndLedger(model.id);
      });

      it('is 401 SIGNATURE_INVALID for a wrong secret or a stale timestamp, and changes nothing', async () => {
        const account = await fundedAccount();
        const accepted = await processingTransfer(account);
        const forged = await bank.pushUpdate(
          suite.t.url,
          { reference: accepted.id, status: 'successful' },
          { secret: newWebhookSecret() },
        );
        assert.equal(forged.status, 401, JSON.stringify(forged.body));
        assert.equal((forged.body as Json).error_code, 'SIGNATURE_INVALID');
        const stale = await postSigned(
          suite.t.api,
          BANK_TRANSFER_UPDATES,
          { reference: accepted.id, status: 'successful' },
          { nowMs: suite.t.clock.now() - 6 * 60 * 1000 },
        );
        assertError(stale, 401, 'SIGNATURE_INVALID');
        const transfer = await fetchTransfer(accepted.id);
        assert.equal(transfer.status, 'processing');
        assert.deepEqual(await entriesOf(accepted.id), []);
        // Signed right, the same news is taken: the refusals were for the signature only.
        const signed = await postSigned(
          suite.t.api,
          BANK_TRANSFER_UPDATES,
          { reference: accepted.id, status: 'successful' },
          { nowMs: suite.t.clock.now() },
        );
        assert.equal(signed.status, 200, signed.text);
        assert.equal(signed.body.data.outcome, 'applied');
        await checkBankAndLedger(accepted.id);
      });

      it('reversed on a processing transfer books its success, then the reversal of the amount (the fee kept)', async () => {
        const account = await fundedAccount();
        const accepted = await processingTransfer(account, { amount: 2500 });
        const applied = await bank.pushUpdate(suite.t.url, {
          reference: accepted.id,
          status: 'reversed',
          reason: 'returned by the beneficiary bank',
        });
        assert.equal(applied.status, 200, JSON.stringify(applied.body));
        const transfer = (applied.body as Json).data.transfer;
        assert.equal((applied.body as Json).data.outcome, 'applied');
        assert.equal(transfer.status, 'reversed');
        assert.deepEqual(historyOf(transfer), ['pending', 'processing', 'successful', 'reversed']);
        assert.deepEqual(await entriesOf(accepted.id), [
          { kind: 'fee', type: 'debit', amount_kobo: 1075 },
          { kind: 'reversal', type: 'credit', amount_kobo: 250_000 },
          { kind: 'transfer', type: 'debit', amount_kobo: 250_000 },
        ]);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO - 1075,
          available: FUNDED_KOBO - 1075,
        });
        assert.equal((await eventsOf('transfer.successful', accepted.id)).length, 1);
        assert.equal((await eventsOf('transfer.reversed', accepted.id)).length, 1);
        const repeat = await bank.pushUpdate(suite.t.url, { reference: accepted.id, status: 'reversed' });
        assert.equal((repeat.body as Json).data.outcome, 'unchanged');
        assert.equal((await entriesOf(accepted.id)).length, 3, 'a repeat books nothing');
        await checkBankAndLedger(accepted.id);
      });

      it('a late reversal after success credits the amount back once and announces transfer.reversed', async () => {
        const account = await fundedAccount();
        const accountNumber = beneficiaryNumber();
        bank.script(accountNumber, { transfer: { responseCode: '00' } });
        const accepted = await send(account, accountNumber, { amount: 60_000 });
        const done = await settled(accepted.id, 'successful');
        assert.equal(done.fee_kobo, 5375);
        assert.equal(done.session_id, bank.transfers.get(accepted.id)?.session_id);
        assert.match(String(done.session_id), /^\d{30}$/);

        const reversal = await bank.pushUpdate(suite.t.url, {
          reference: accepted.id,
          status: 'reversed',
          response_code: '00',
          reason: 'beneficiary account closed after credit',
        });
        assert.equal(reversal.status, 200, JSON.stringify(reversal.body));
        assert.equal((reversal.body as Json).data.outcome, 'applied');
        const reversed = await fetchTransfer(accepted.id);
        assert.equal(reversed.status, 'reversed');
        assert.equal(reversed.session_id, done.session_id);
        assert.deepEqual(historyOf(reversed), ['pending', 'processing', 'successful', 'reversed']);
        assert.deepEqual(await entriesOf(accepted.id), [
          { kind: 'fee', type: 'debit', amount_kobo: 5375 },
          { kind: 'reversal', type: 'credit', amount_kobo: 6_000_000 },
          { kind: 'transfer', type: 'debit', amount_kobo: 6_000_000 },
        ]);
        assert.deepEqual(await balances(account.account_number), {
          balance: FUNDED_KOBO - 5375,
          available: FUNDED_KOBO - 5375,
        });
        const events = await eventsOf('transfer.reversed', accepted.id);
        assert.equal(events.length, 1);
        assert.equal(events[0].data.status, 'reversed');
        assert.equal(events[0].data.amount_kobo, 6_000_000);
        const contradiction = await bank.pushUpdate(suite.t.url, {
          reference: accepted.id,
          status: 'failed',
        });
        assert.equal(contradiction.status, 409, JSON.stringify(contradiction.body));
        assert.equal((contradiction.body as Json).error_code, 'TRANSFER_STATE_CONFLICT');
        await checkBankAndLedger(accepted.id);
      });
    });

    it('never POSTed any transfer twice, nor signed a call wrong, over the whole suite', async () => {
      // Late resends would land after a test's own check: look once more at the end.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const posted = new Map<string, number>();
      for (const request of bank.requests) {
        if (request.method !== 'POST' || request.path !== '/transfers') continue;
        const id = (request.body as { reference: string }).reference;
        posted.set(id, (posted.get(id) ?? 0) + 1);
      }
      assert.ok(posted.size >= 15, `the suite sent transfers (${posted.size})`);
      assert.deepEqual(
        [...posted].filter(([, count]) => count !== 1),
        [],
        'references POSTed more than once',
      );
      assert.equal(bank.signatureFailures, 0);
      await assertLedgerBalanced(suite.t.db);
    });
  });
}
