import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { adminGet, adminHeaders } from '../support/admin.js';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, retryAfterSeconds, UUID, until } from '../support/assertions.js';
import { pinClock } from '../support/clock.js';
import { uniqueSuffix } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  ADMIN_TRANSFERS,
  accountUrl,
  BANKS,
  creditUrl,
  DAILY_REPORT,
  EVENTS,
  lifecycleUrl,
  NAME_ENQUIRY,
  statementUrl,
  TRANSFERS,
  transactionsUrl,
  transferUrl,
} from '../support/paths.js';
import { runScript } from '../support/server-process.js';

/*
 * Money out (issue 29) over HTTP, in the sandbox: banks, name enquiry, transfers through the sandbox
 * bank to every outcome it has, fees, holds, book transfers, refusals that move nothing, idempotency,
 * listing; every balance checked through the API and the ledger against the independent oracle.
 */

/** The worker fast enough for tests (status queries after 200 ms). */
const FAST_WORKER = { TRANSFER_REQUERY_MS: '200', TRANSFER_POLL_MS: '50' };
const SANDBOX_BANK_CODE = '999999';
const LIVE_BANK_CODE = '090999';
const GTBANK = '000013';
const MINUTE = 60_000;
const FINAL = ['successful', 'failed', 'reversed'];
const TRANSFER_FIELDS = [
  'amount',
  'amount_kobo',
  'beneficiary',
  'created_at',
  'currency',
  'environment',
  'failure_reason',
  'fee',
  'fee_kobo',
  'id',
  'narration',
  'reference',
  'session_id',
  'source_account_number',
  'status',
  'status_history',
  'updated_at',
];

// biome-ignore lint/suspicious/noExplicitAny: objects as the API returns them.
type Json = any;

/** A 10-digit account at another bank whose last two digits choose the sandbox bank's answer. */
const external = (ending = '10') => `${String(randomInt(0, 1e8)).padStart(8, '0')}${ending}`;
const reference = () => `ref-${uniqueSuffix()}`;

/** Every test speaks to the app of its suite, as a sandbox partner. */
function kit(suite: AppContext) {
  const api = () => suite.t.api;

  async function fund(key: string, accountNumber: string, amount: number) {
    const response = await api().post(creditUrl(accountNumber), { amount }, { token: key });
    assert.equal(response.status, 201, response.text);
  }

  async function fundedAccount(key: string, amount: number) {
    const account = await createAccount(suite.t, key);
    await fund(key, account.account_number, amount);
    return account.account_number as string;
  }

  const body = (source: string, overrides: Record<string, unknown> = {}) => ({
    source_account_number: source,
    amount: '1000.00',
    bank_code: GTBANK,
    account_number: external(),
    reference: reference(),
    ...overrides,
  });

  const send = (key: string, json: unknown, headers: Record<string, string> = {}) =>
    api().post(TRANSFERS, json, { token: key, headers });

  /** A transfer the API accepted (202); answers the transfer. */
  async function accepted(key: string, json: unknown): Promise<Json> {
    const response = await send(key, json);
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.status, 'success');
    return response.body.data;
  }

  async function read(key: string, id: string): Promise<Json> {
    const response = await api().get(transferUrl(id), { token: key });
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  }

  /** Polls GET /services/transfers/{id} until the transfer is in one of `statuses`. */
  const settled = (key: string, id: string, statuses = FINAL): Promise<Json> =>
    until(
      `transfer ${id} to become ${statuses.join('|')}`,
      async () => {
        const transfer = await read(key, id);
        return statuses.includes(transfer.status) ? transfer : undefined;
      },
      15_000,
      50,
    );

  async function account(key: string, accountNumber: string): Promise<Json> {
    const response = await api().get(accountUrl(accountNumber), { token: key });
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  }

  /** Ledger balance and available balance, in kobo. */
  async function balances(key: string, accountNumber: string) {
    const data = await account(key, accountNumber);
    assert.equal(data.balance, data.balance_kobo / 100);
    assert.equal(data.available_balance, data.available_balance_kobo / 100);
    return { balance: data.balance_kobo as number, available: data.available_balance_kobo as number };
  }

  const entries = (key: string, accountNumber: string): Promise<Json[]> =>
    listAll(suite.t, transactionsUrl(accountNumber), key);

  const events = (key: string, type: string): Promise<Json[]> =>
    listAll(suite.t, `${EVENTS}?type=${type}`, key);

  /** How many transfers the database holds with this reference (of any partner). */
  const storedWithReference = async (ref: string) =>
    (await suite.t.db.selectFrom('transfers').select('id').where('reference', '=', ref).execute()).length;

  async function lifecycle(key: string, accountNumber: string, action: 'deactivate' | 'close') {
    const response = await api().post(
      lifecycleUrl(accountNumber, action),
      { reason: 'test' },
      { token: key },
    );
    assert.equal(response.status, 200, response.text);
  }

  return {
    fund,
    fundedAccount,
    body,
    send,
    accepted,
    read,
    settled,
    account,
    balances,
    entries,
    events,
    storedWithReference,
    lifecycle,
  };
}

/** The transfer object's shape (docs/partner-guide.md, "Sending money"). */
function assertTransferShape(transfer: Json, expected: { amountKobo: number; feeKobo: number }) {
  assert.deepEqual(Object.keys(transfer).sort(), TRANSFER_FIELDS);
  assert.match(transfer.id, UUID);
  assert.equal(transfer.amount_kobo, expected.amountKobo);
  assert.equal(transfer.amount, expected.amountKobo / 100);
  assert.equal(transfer.fee_kobo, expected.feeKobo);
  assert.equal(transfer.fee, expected.feeKobo / 100);
  assert.equal(transfer.currency, 'NGN');
  assert.equal(transfer.environment, 'sandbox');
  assert.match(transfer.created_at, ISO_INSTANT);
  assert.match(transfer.updated_at, ISO_INSTANT);
  assert.deepEqual(Object.keys(transfer.beneficiary).sort(), [
    'account_name',
    'account_number',
    'bank_code',
    'bank_name',
  ]);
  for (const change of transfer.status_history) assert.match(change.at, ISO_INSTANT);
}

const statusesOf = (transfer: Json) => transfer.status_history.map((change: Json) => change.status);

for (const dialect of DIALECTS) {
  describe(`transfers over HTTP in the sandbox [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: FAST_WORKER });
    const k = kit(suite);
    let partner: PartnerAt<'sandbox'>;
    let other: PartnerAt<'sandbox'>;
    before(async () => {
      partner = await newPartner(suite, 'sandbox');
      other = await newPartner(suite, 'sandbox');
    });

    it('lists the banks sorted by name, with the big commercial banks and this institution', async () => {
      const response = await suite.t.api.get(BANKS, { token: partner.sandboxKey });
      assert.equal(response.status, 200, response.text);
      const banks = response.body.data as Array<{ code: string; name: string }>;
      for (const bank of banks) {
        assert.deepEqual(Object.keys(bank).sort(), ['code', 'name']);
        assert.match(bank.code, /^[0-9]{6}$/);
      }
      const names = banks.map((bank) => bank.name);
      assert.deepEqual(
        names,
        [...names].sort((x, y) => x.localeCompare(y)),
        'sorted by name',
      );
      const codes = new Map(banks.map((bank) => [bank.code, bank.name]));
      assert.equal(codes.size, banks.length, 'each code once');
      for (const code of ['000013', '000014', '000016']) assert.ok(codes.has(code), `${code} listed`);
      assert.equal(codes.get(SANDBOX_BANK_CODE), 'BaaS Partner Bank');
      assert.equal(codes.has(LIVE_BANK_CODE), false, "the live institution code is not the sandbox's");
      assertError(await suite.t.api.get(BANKS), 401, 'UNAUTHENTICATED');
    });

    it('answers name enquiries as the sandbox bank does, reusing an answer with its reference', async () => {
      const { t } = suite;
      const key = partner.sandboxKey;
      const number = external('42');
      const first = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: GTBANK, account_number: number },
        { token: key },
      );
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(Object.keys(first.body.data).sort(), [
        'account_name',
        'account_number',
        'bank_code',
        'bank_name',
        'name_enquiry_ref',
      ]);
      assert.equal(first.body.data.account_name, 'SANDBOX BENEFICIARY');
      assert.equal(first.body.data.bank_code, GTBANK);
      assert.equal(first.body.data.account_number, number);
      assert.ok(first.body.data.bank_name.length > 0);
      const again = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: GTBANK, account_number: number },
        { token: key },
      );
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.name_enquiry_ref, first.body.data.name_enquiry_ref, 'cached answer');

      const unknown = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: GTBANK, account_number: external('00') },
        { token: key },
      );
      assertError(unknown, 422, 'BENEFICIARY_NOT_FOUND');
      const down = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: GTBANK, account_number: external('91') },
        { token: key },
      );
      assertError(down, 503, 'BANK_UNAVAILABLE');
      retryAfterSeconds(down);
      const noBank = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: '123456', account_number: number },
        { token: key },
      );
      assertError(noBank, 422, 'VALIDATION_FAILED', { fields: ['bank_code'] });
      const short = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: GTBANK, account_number: '12345' },
        { token: key },
      );
      assertError(short, 422, 'VALIDATION_FAILED', { fields: ['account_number'] });
    });

    it("resolves this institution's own accounts of the environment, any partner's, active or inactive, not closed", async () => {
      const { t } = suite;
      const enquire = (accountNumber: string) =>
        t.api.post(
          NAME_ENQUIRY,
          { bank_code: SANDBOX_BANK_CODE, account_number: accountNumber },
          { token: partner.sandboxKey },
        );
      const theirs = await createAccount(t, other.sandboxKey);
      const found = await enquire(theirs.account_number);
      assert.equal(found.status, 200, found.text);
      assert.equal(found.body.data.account_name, theirs.account_name);
      assert.equal(found.body.data.bank_name, 'BaaS Partner Bank');

      await k.lifecycle(other.sandboxKey, theirs.account_number, 'deactivate');
      const inactive = await enquire(theirs.account_number);
      assert.equal(inactive.status, 200, inactive.text);
      assert.equal(inactive.body.data.account_name, theirs.account_name);

      await k.lifecycle(other.sandboxKey, theirs.account_number, 'close');
      assertError(await enquire(theirs.account_number), 422, 'BENEFICIARY_NOT_FOUND');
      // An own-code number no account has (the sandbox bank's endings mean nothing here).
      assertError(await enquire('0000000042'), 422, 'BENEFICIARY_NOT_FOUND');
    });

    it('sends to another bank: 202 pending with the fee, then successful with a session id, two debits and the event', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 20_000);
      const beneficiary = external('10');
      const ref = reference();
      const transfer = await k.accepted(
        key,
        k.body(source, { amount: 1000, account_number: beneficiary, reference: ref, narration: 'Rent, May' }),
      );
      assertTransferShape(transfer, { amountKobo: 100_000, feeKobo: 1075 });
      assert.equal(transfer.status, 'pending');
      assert.deepEqual(statusesOf(transfer), ['pending']);
      assert.equal(transfer.reference, ref);
      assert.equal(transfer.narration, 'Rent, May');
      assert.equal(transfer.source_account_number, source);
      assert.equal(transfer.session_id, null);
      assert.equal(transfer.failure_reason, null);
      assert.deepEqual(transfer.beneficiary, {
        account_name: 'SANDBOX BENEFICIARY',
        account_number: beneficiary,
        bank_code: GTBANK,
        bank_name: transfer.beneficiary.bank_name,
      });

      const done = await k.settled(key, transfer.id);
      assert.equal(done.status, 'successful', JSON.stringify(done));
      assert.deepEqual(statusesOf(done), ['pending', 'processing', 'successful']);
      assert.match(done.session_id, /^[0-9]{30}$/);
      assert.equal(done.failure_reason, null);
      assert.ok(done.updated_at >= done.created_at);

      assert.deepEqual(await k.balances(key, source), {
        balance: 2_000_000 - 100_000 - 1075,
        available: 2_000_000 - 100_000 - 1075,
      });
      const [fee, debit, credit] = await k.entries(key, source);
      assert.ok(credit && debit && fee, 'three entries: the credit, the transfer and its fee');
      assert.equal(credit.kind, 'inbound_transfer');
      assert.equal(debit.type, 'debit');
      assert.equal(debit.kind, 'transfer');
      assert.equal(debit.amount_kobo, 100_000);
      assert.equal(debit.reference, `TRF-${transfer.id}`);
      assert.equal(debit.session_id, done.session_id);
      assert.equal(debit.transfer_id, transfer.id);
      assert.deepEqual(debit.counterparty, done.beneficiary);
      assert.equal(debit.balance_after_kobo, 2_000_000 - 100_000);
      assert.equal(fee.type, 'debit');
      assert.equal(fee.kind, 'fee');
      assert.equal(fee.amount_kobo, 1075);
      assert.equal(fee.reference, `FEE-${transfer.id}`);
      assert.equal(fee.transfer_id, transfer.id);
      assert.equal(fee.balance_after_kobo, 2_000_000 - 100_000 - 1075);

      const event = (await k.events(key, 'transfer.successful')).find((item) => item.data.id === transfer.id);
      assert.ok(event, 'a transfer.successful event');
      assert.deepEqual(event.data, done, 'the event carries the transfer');
      assert.equal(
        (await k.events(other.sandboxKey, 'transfer.successful')).some(
          (item) => item.data.id === transfer.id,
        ),
        false,
        "not among another partner's events",
      );
      await assertLedgerBalanced(suite.t.db);
    });

    it('charges the NIP fee of the tier the amount is in: 1075, 2688 and 5375 kobo at the boundaries', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 200_000);
      const cases: Array<[number | string, number, number]> = [
        ['0.01', 1, 1075],
        [5000, 500_000, 1075],
        ['5000.00', 500_000, 1075],
        ['5000.01', 500_001, 2688],
        ['50000.00', 5_000_000, 2688],
        [50000.01, 5_000_001, 5375],
      ];
      const ids: string[] = [];
      for (const [amount, amountKobo, feeKobo] of cases) {
        const transfer = await k.accepted(key, k.body(source, { amount }));
        assert.equal(transfer.amount_kobo, amountKobo, `amount ${amount}`);
        assert.equal(transfer.fee_kobo, feeKobo, `fee of ${amount}`);
        ids.push(transfer.id);
      }
      for (const id of ids) assert.equal((await k.settled(key, id)).status, 'successful');
      const spent = cases.reduce((sum, [, amountKobo, feeKobo]) => sum + amountKobo + feeKobo, 0);
      assert.deepEqual(await k.balances(key, source), {
        balance: 20_000_000 - spent,
        available: 20_000_000 - spent,
      });
      await assertLedgerBalanced(suite.t.db);
    });

    it('fails a transfer the bank refuses (05): hold released, no entry, failure_reason, transfer.failed', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const transfer = await k.accepted(key, k.body(source, { account_number: external('05') }));
      const done = await k.settled(key, transfer.id);
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.deepEqual(statusesOf(done), ['pending', 'processing', 'failed']);
      assert.equal(done.failure_reason, 'do not honor (05)');
      assert.equal(done.session_id, null, 'the bank refused it: no session');
      assert.equal(done.fee_kobo, 1075);
      assert.deepEqual(await k.balances(key, source), { balance: 500_000, available: 500_000 });
      const entries = await k.entries(key, source);
      assert.deepEqual(
        entries.map((entry) => entry.kind),
        ['inbound_transfer'],
        'nothing but the credit',
      );
      const event = (await k.events(key, 'transfer.failed')).find((item) => item.data.id === transfer.id);
      assert.ok(event, 'a transfer.failed event');
      assert.deepEqual(event.data, done, 'the event carries the transfer');
      assert.equal(
        (await k.events(key, 'transfer.successful')).some((item) => item.data.id === transfer.id),
        false,
        'never announced successful',
      );
      await assertLedgerBalanced(suite.t.db);
    });

    it('keeps a transfer whose answer timed out (97) processing, then books it successful on the status query', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const transfer = await k.accepted(key, k.body(source, { account_number: external('97') }));
      const done = await k.settled(key, transfer.id);
      assert.equal(done.status, 'successful', JSON.stringify(done));
      assert.deepEqual(statusesOf(done), ['pending', 'processing', 'successful']);
      assert.match(done.session_id, /^[0-9]{30}$/);
      assert.equal(done.failure_reason, null);
      // Booked once, however many times the bank was asked.
      const [fee, debit, credit] = await k.entries(key, source);
      assert.deepEqual(
        [fee?.kind, debit?.kind, credit?.kind],
        ['fee', 'transfer', 'inbound_transfer'],
        'the credit, then the transfer and its fee, once',
      );
      assert.equal(debit.reference, `TRF-${transfer.id}`);
      assert.equal(debit.session_id, done.session_id);
      assert.equal(debit.balance_after_kobo, 500_000 - 100_000);
      assert.equal(fee.reference, `FEE-${transfer.id}`);
      assert.equal(fee.balance_after_kobo, 500_000 - 100_000 - 1075);
      const events = (await k.events(key, 'transfer.successful')).filter(
        (item) => item.data.id === transfer.id,
      );
      assert.equal(events.length, 1, 'announced once');
      assert.deepEqual(events[0].data, done);
      assert.deepEqual(await k.balances(key, source), {
        balance: 500_000 - 100_000 - 1075,
        available: 500_000 - 100_000 - 1075,
      });
      await assertLedgerBalanced(suite.t.db);
    });

    it('reverses a transfer the bank returns (21): a reversal credit of the amount, the fee kept, transfer.reversed', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const transfer = await k.accepted(key, k.body(source, { account_number: external('21') }));
      const done = await k.settled(key, transfer.id, ['reversed', 'failed']);
      assert.equal(done.status, 'reversed', JSON.stringify(done));
      assert.deepEqual(statusesOf(done), ['pending', 'processing', 'successful', 'reversed']);
      assert.match(done.session_id, /^[0-9]{30}$/);
      const entries = await k.entries(key, source);
      assert.equal(entries.length, 4, 'credit, transfer, fee, reversal');
      const [reversal, fee, debit] = entries;
      assert.equal(debit.kind, 'transfer');
      assert.equal(debit.reference, `TRF-${transfer.id}`);
      assert.equal(debit.amount_kobo, 100_000);
      assert.equal(fee.kind, 'fee');
      assert.equal(fee.reference, `FEE-${transfer.id}`);
      assert.equal(fee.amount_kobo, 1075);
      assert.equal(reversal.balance_after_kobo, 500_000 - 1075);
      assert.equal(reversal.type, 'credit');
      assert.equal(reversal.kind, 'reversal');
      assert.equal(reversal.amount_kobo, 100_000);
      assert.equal(reversal.reference, `REV-${transfer.id}`);
      assert.equal(reversal.transfer_id, transfer.id);
      assert.deepEqual(await k.balances(key, source), {
        balance: 500_000 - 1075,
        available: 500_000 - 1075,
      });
      const succeeded = (await k.events(key, 'transfer.successful')).filter(
        (item) => item.data.id === transfer.id,
      );
      assert.equal(succeeded.length, 1, 'one transfer.successful');
      assert.equal(succeeded[0].data.status, 'successful');
      assert.deepEqual(statusesOf(succeeded[0].data), ['pending', 'processing', 'successful']);
      const reversed = (await k.events(key, 'transfer.reversed')).filter(
        (item) => item.data.id === transfer.id,
      );
      assert.equal(reversed.length, 1, 'one transfer.reversed');
      assert.deepEqual(reversed[0].data, done, 'the event carries the transfer');
      await assertLedgerBalanced(suite.t.db);
    });

    it('refuses, holding nothing: unknown or unreachable beneficiary, a source not its own or not active, itself', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const theirs = await k.fundedAccount(other.sandboxKey, 5_000);
      const refused: string[] = [];
      const refuse = async (overrides: Record<string, unknown>, as = key) => {
        const json = k.body(source, overrides);
        refused.push(json.reference);
        return k.send(as, json);
      };

      assertError(await refuse({ account_number: external('00') }), 422, 'BENEFICIARY_NOT_FOUND');
      const down = await refuse({ account_number: external('91') });
      assertError(down, 503, 'BANK_UNAVAILABLE');
      retryAfterSeconds(down);
      assertError(await refuse({ source_account_number: theirs }), 404, 'NOT_FOUND');
      assertError(await refuse({}, other.sandboxKey), 404, 'NOT_FOUND', { what: "another partner's source" });
      assertError(await refuse({ source_account_number: '0123456789' }), 404, 'NOT_FOUND');
      assertError(
        await refuse({ bank_code: SANDBOX_BANK_CODE, account_number: source }),
        422,
        'VALIDATION_FAILED',
      );
      assert.deepEqual(await k.balances(key, source), { balance: 500_000, available: 500_000 });

      const inactive = await k.fundedAccount(key, 5_000);
      await k.lifecycle(key, inactive, 'deactivate');
      assertError(await refuse({ source_account_number: inactive }), 409, 'ACCOUNT_INACTIVE');
      const closed = await createAccount(suite.t, key);
      await k.lifecycle(key, closed.account_number, 'close');
      assertError(await refuse({ source_account_number: closed.account_number }), 409, 'ACCOUNT_CLOSED');
      assert.deepEqual(await k.balances(key, inactive), { balance: 500_000, available: 500_000 });

      for (const ref of refused) assert.equal(await k.storedWithReference(ref), 0, `${ref} not stored`);
      await assertLedgerBalanced(suite.t.db);
    });

    it('refuses 409 INSUFFICIENT_FUNDS when amount plus fee exceeds the available balance, and takes it when equal', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 1_010.75);
      const over = k.body(source, { amount: '1000.01' });
      assertError(await k.send(key, over), 409, 'INSUFFICIENT_FUNDS');
      assert.equal(await k.storedWithReference(over.reference), 0);
      assert.deepEqual(await k.balances(key, source), { balance: 101_075, available: 101_075 });

      const exact = await k.accepted(key, k.body(source, { amount: '1000.00' }));
      assert.equal(exact.fee_kobo, 1075);
      assert.equal((await k.settled(key, exact.id)).status, 'successful');
      assert.deepEqual(await k.balances(key, source), { balance: 0, available: 0 });
      assertError(await k.send(key, k.body(source, { amount: '0.01' })), 409, 'INSUFFICIENT_FUNDS');
      await assertLedgerBalanced(suite.t.db);
    });

    it('answers 422 VALIDATION_FAILED naming the field, creating nothing', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const cases: Array<[string, Record<string, unknown>]> = [
        ['amount', { amount: 0 }],
        ['amount', { amount: '0.00' }],
        ['amount', { amount: -1 }],
        ['amount', { amount: '-1' }],
        ['amount', { amount: 1.005 }],
        ['amount', { amount: '1.005' }],
        ['amount', { amount: '1.001' }],
        ['amount', { amount: 10_000_000.01 }],
        ['amount', { amount: '10000000.01' }],
        ['amount', { amount: 'abc' }],
        ['amount', { amount: 'ten' }],
        ['amount', { amount: undefined }],
        ['reference', { reference: undefined }],
        ['reference', { reference: 'ref/1' }],
        ['reference', { reference: 'réf' }],
        ['reference', { reference: 'has space' }],
        ['reference', { reference: 'x'.repeat(65) }],
        ['reference', { reference: '   ' }],
        ['narration', { narration: 'n'.repeat(101) }],
        ['narration', { narration: 'pay\u202Eme' }],
        ['narration', { narration: 'pay\u0007me' }],
        ['narration', { narration: 'pay\u0000me' }],
        ['bank_code', { bank_code: '123456' }],
        ['bank_code', { bank_code: undefined }],
        ['account_number', { account_number: '12345' }],
        ['account_number', { account_number: undefined }],
        ['source_account_number', { source_account_number: undefined }],
      ];
      for (const [field, overrides] of cases) {
        const json = k.body(source, overrides);
        const ref = typeof json.reference === 'string' ? json.reference : '';
        assertError(await k.send(key, json), 422, 'VALIDATION_FAILED', {
          fields: [field],
          what: `${field} ${JSON.stringify(overrides)}`,
        });
        if (ref) assert.equal(await k.storedWithReference(ref), 0);
      }
      assertError(await k.send(key, {}), 422, 'VALIDATION_FAILED', {
        fields: ['source_account_number', 'amount', 'bank_code', 'account_number', 'reference'],
      });
      assert.deepEqual(await k.balances(key, source), { balance: 500_000, available: 500_000 });
      const atLimit = await k.accepted(
        key,
        k.body(source, { reference: 'R'.repeat(64), amount: '1', narration: 'n'.repeat(100) }),
      );
      assert.equal(atLimit.reference, 'R'.repeat(64));
      assert.equal(atLimit.narration, 'n'.repeat(100));
      const plain = await k.accepted(key, k.body(source, { amount: '1.5' }));
      assert.equal(plain.amount_kobo, 150);
      assert.equal(plain.narration, plain.reference, 'narration defaults to the reference');
      await k.settled(key, atLimit.id);
      await k.settled(key, plain.id);
      await assertLedgerBalanced(suite.t.db);
    });

    it('takes a name_enquiry_ref for the same bank and account, and enquires again for another account', async () => {
      const { t } = suite;
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const number = external('33');
      const enquiry = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: GTBANK, account_number: number },
        { token: key },
      );
      assert.equal(enquiry.status, 200, enquiry.text);
      const ref = enquiry.body.data.name_enquiry_ref as string;
      const transfer = await k.accepted(
        key,
        k.body(source, { account_number: number, name_enquiry_ref: ref }),
      );
      assert.equal(transfer.beneficiary.account_name, 'SANDBOX BENEFICIARY');
      assert.equal((await k.settled(key, transfer.id)).status, 'successful');

      // The reference vouches for `number` only: an unknown account is still found unknown.
      const misused = k.body(source, { account_number: external('00'), name_enquiry_ref: ref });
      assertError(await k.send(key, misused), 422, 'BENEFICIARY_NOT_FOUND');
      assert.equal(await k.storedWithReference(misused.reference), 0);
      await assertLedgerBalanced(t.db);
    });

    it('refuses a reused reference with 409 DUPLICATE_REFERENCE and the existing transfer; another partner may use it', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const ref = reference();
      const first = await k.accepted(key, k.body(source, { reference: ref }));
      const again = await k.send(key, k.body(source, { reference: ref, amount: '5' }));
      assertError(again, 409, 'DUPLICATE_REFERENCE', { data: true });
      assert.equal(again.body.data.id, first.id);
      assert.equal(again.body.data.amount_kobo, 100_000);
      assert.equal(await k.storedWithReference(ref), 1);

      const theirs = await k.fundedAccount(other.sandboxKey, 5_000);
      const elsewhere = await k.accepted(other.sandboxKey, k.body(theirs, { reference: ref }));
      assert.notEqual(elsewhere.id, first.id);
      await k.settled(key, first.id);
      await k.settled(other.sandboxKey, elsewhere.id);
      // Only the accepted transfer's amount and fee left the account.
      assert.equal((await k.balances(key, source)).balance, 500_000 - 100_000 - 1075);
      await assertLedgerBalanced(suite.t.db);
    });

    it('replays an Idempotency-Key: same 202 and body, Idempotent-Replayed, one transfer; 422 for another body', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const json = k.body(source);
      const headers = { 'idempotency-key': `idem-${uniqueSuffix()}` };
      const first = await k.send(key, json, headers);
      assert.equal(first.status, 202, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const replay = await k.send(key, json, headers);
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      assertError(await k.send(key, { ...json, amount: '2000.00' }, headers), 422, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(await k.storedWithReference(json.reference), 1);
      await k.settled(key, first.body.data.id);
      assert.equal((await k.balances(key, source)).balance, 500_000 - 100_000 - 1075, 'debited once');
    });

    it('books a transfer to an account of this institution at once: no fee, both entries, credited event', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const target = await createAccount(suite.t, other.sandboxKey);
      const transfer = await k.accepted(
        key,
        k.body(source, {
          bank_code: SANDBOX_BANK_CODE,
          account_number: target.account_number,
          amount: '1234.56',
        }),
      );
      assertTransferShape(transfer, { amountKobo: 123_456, feeKobo: 0 });
      assert.equal(transfer.status, 'successful');
      assert.deepEqual(transfer.beneficiary, {
        account_name: target.account_name,
        account_number: target.account_number,
        bank_code: SANDBOX_BANK_CODE,
        bank_name: 'BaaS Partner Bank',
      });
      assert.equal(statusesOf(transfer).at(-1), 'successful');

      assert.deepEqual(await k.balances(key, source), { balance: 376_544, available: 376_544 });
      assert.deepEqual(await k.balances(other.sandboxKey, target.account_number), {
        balance: 123_456,
        available: 123_456,
      });
      const [debit] = await k.entries(key, source);
      assert.equal(debit.type, 'debit');
      assert.equal(debit.kind, 'book_transfer');
      assert.equal(debit.reference, `TRF-${transfer.id}`);
      assert.equal(debit.amount_kobo, 123_456);
      const credits = await k.entries(other.sandboxKey, target.account_number);
      assert.equal(credits.length, 1);
      assert.equal(credits[0].type, 'credit');
      assert.equal(credits[0].kind, 'book_transfer');
      assert.equal(credits[0].reference, `BOOK-${transfer.id}`);
      assert.equal(credits[0].amount_kobo, 123_456);
      const credited = (await k.events(other.sandboxKey, 'virtual_account.credited')).filter((item) =>
        JSON.stringify(item.data).includes(target.account_number),
      );
      assert.equal(credited.length, 1, 'the beneficiary partner hears of the credit');
      assert.equal((await k.read(key, transfer.id)).status, 'successful', 'and it stays so');
      await assertLedgerBalanced(suite.t.db);
    });

    it('moves nothing on a book transfer to an inactive (409 ACCOUNT_INACTIVE) or closed (422) account', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const inactive = await createAccount(suite.t, other.sandboxKey);
      await k.lifecycle(other.sandboxKey, inactive.account_number, 'deactivate');
      const closed = await createAccount(suite.t, other.sandboxKey);
      await k.lifecycle(other.sandboxKey, closed.account_number, 'close');
      const toInactive = k.body(source, {
        bank_code: SANDBOX_BANK_CODE,
        account_number: inactive.account_number,
      });
      assertError(await k.send(key, toInactive), 409, 'ACCOUNT_INACTIVE');
      const toClosed = k.body(source, {
        bank_code: SANDBOX_BANK_CODE,
        account_number: closed.account_number,
      });
      assertError(await k.send(key, toClosed), 422, 'BENEFICIARY_NOT_FOUND');
      assert.equal(await k.storedWithReference(toInactive.reference), 0);
      assert.equal(await k.storedWithReference(toClosed.reference), 0);
      assert.deepEqual(await k.balances(key, source), { balance: 500_000, available: 500_000 });
      assert.deepEqual(await k.entries(other.sandboxKey, inactive.account_number), []);
      await assertLedgerBalanced(suite.t.db);
    });

    it('lists transfers newest first with filters and pages; a transfer of another partner is 404', async () => {
      const { t } = suite;
      const lister = await newPartner(suite, 'sandbox');
      const key = lister.sandboxKey;
      const first = await k.fundedAccount(key, 50_000);
      const second = await k.fundedAccount(key, 50_000);
      const made: Json[] = [];
      for (const [source, ending] of [
        [first, '10'],
        [first, '05'],
        [second, '10'],
        [first, '10'],
        [second, '05'],
      ] as const) {
        made.push(await k.accepted(key, k.body(source, { account_number: external(ending) })));
      }
      for (const transfer of made) await k.settled(key, transfer.id);

      const all = await listAll(t, TRANSFERS, key, 2);
      assert.deepEqual(
        all.map((item) => item.id),
        made.map((item) => item.id).reverse(),
        'every transfer, newest first, over pages of 2',
      );
      const ids = async (query: string) =>
        (await listAll(t, `${TRANSFERS}?${query}`, key)).map((item) => item.id);
      assert.deepEqual(await ids('status=failed'), [made[4].id, made[1].id]);
      assert.deepEqual(await ids(`source_account_number=${first}`), [made[3].id, made[1].id, made[0].id]);
      assert.deepEqual(await ids(`source_account_number=${second}&status=successful`), [made[2].id]);
      assert.deepEqual(await ids(`reference=${made[2].reference}`), [made[2].id]);
      const from = made[0].created_at.slice(0, 10);
      const to = made[made.length - 1].created_at.slice(0, 10);
      assert.equal((await ids(`created_from=${from}&created_to=${to}`)).length, made.length);
      assert.deepEqual(await ids('created_from=2000-01-01&created_to=2000-01-02'), []);
      assertError(await t.api.get(`${TRANSFERS}?status=lost`, { token: key }), 422, 'VALIDATION_FAILED', {
        fields: ['status'],
      });

      const got = await k.read(key, made[1].id);
      assert.equal(got.status, 'failed');
      assertError(await t.api.get(transferUrl(made[1].id), { token: partner.sandboxKey }), 404, 'NOT_FOUND');
      assertError(await t.api.get(transferUrl(randomUUID()), { token: key }), 404, 'NOT_FOUND');
      assert.equal(
        (await listAll(t, TRANSFERS, partner.sandboxKey)).some((item) => item.id === made[0].id),
        false,
        "not in another partner's list",
      );
    });

    it('never lets concurrent transfers take the available balance below zero', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 10_000);
      // 2,000 + 10.75 each: four fit in 10,000, the fifth does not.
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => k.send(key, k.body(source, { amount: '2000.00' }))),
      );
      const accepted = responses.filter((response) => response.status === 202);
      for (const response of responses) {
        if (response.status !== 202) assertError(response, 409, 'INSUFFICIENT_FUNDS');
      }
      assert.equal(accepted.length, 4, responses.map((response) => response.status).join(','));
      for (const response of accepted) await k.settled(key, response.body.data.id);
      const left = 1_000_000 - 4 * (200_000 + 1075);
      assert.deepEqual(await k.balances(key, source), { balance: left, available: left });
      await assertLedgerBalanced(suite.t.db);
    });

    it('accepts exactly 9 of 30 concurrent ₦1,000 transfers from ₦10,000; the other 21 are INSUFFICIENT_FUNDS', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 10_000);
      // Watches the account while the race runs: what is available never goes below zero.
      let racing = true;
      const seen: number[] = [];
      const watcher = (async () => {
        while (racing) seen.push((await k.balances(key, source)).available);
      })();
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => k.send(key, k.body(source, { amount: 1000 }))),
      );
      racing = false;
      await watcher;
      const accepted = responses.filter((response) => response.status === 202);
      const refused = responses.filter((response) => response.status !== 202);
      assert.equal(accepted.length, 9, responses.map((response) => response.status).join(','));
      for (const response of refused) assertError(response, 409, 'INSUFFICIENT_FUNDS');
      assert.equal(refused.length, 21);
      for (const response of accepted) {
        assert.equal(response.body.data.status, 'pending');
        assert.equal(response.body.data.fee_kobo, 1075);
      }
      assert.equal(new Set(accepted.map((response) => response.body.data.id)).size, 9);
      assert.ok(seen.length > 0 && seen.every((available) => available >= 0), `available seen: ${seen}`);
      await assertLedgerBalanced(suite.t.db);

      for (const response of accepted) {
        assert.equal((await k.settled(key, response.body.data.id)).status, 'successful');
      }
      const left = 1_000_000 - 9 * (100_000 + 1075);
      assert.deepEqual(await k.balances(key, source), { balance: left, available: left });
      const entries = await k.entries(key, source);
      assert.equal(entries.filter((entry) => entry.kind === 'transfer').length, 9);
      assert.equal(entries.filter((entry) => entry.kind === 'fee').length, 9);
      assert.equal(entries[0].balance_after_kobo, left);
      await assertLedgerBalanced(suite.t.db);
    });

    it('accepts one of 10 concurrent transfers with the same reference; the others are 409 DUPLICATE_REFERENCE with it', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 50_000);
      const ref = reference();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          k.send(key, k.body(source, { reference: ref, amount: `${100 + index}.00` })),
        ),
      );
      const accepted = responses.filter((response) => response.status === 202);
      assert.equal(accepted.length, 1, responses.map((response) => response.status).join(','));
      const winner = accepted[0]!.body.data;
      for (const response of responses) {
        if (response.status === 202) continue;
        assertError(response, 409, 'DUPLICATE_REFERENCE', { data: true });
        assert.equal(response.body.data.id, winner.id);
        assert.equal(response.body.data.reference, ref);
        assert.equal(response.body.data.amount_kobo, winner.amount_kobo);
      }
      assert.equal(await k.storedWithReference(ref), 1);
      const held = winner.amount_kobo + 1075;
      assert.equal((await k.balances(key, source)).available, 5_000_000 - held, 'one hold only');
      await k.settled(key, winner.id);
      assert.deepEqual(await k.balances(key, source), {
        balance: 5_000_000 - held,
        available: 5_000_000 - held,
      });
      await assertLedgerBalanced(suite.t.db);
    });

    it('refuses a book transfer to the source itself (422) and one the balance cannot cover (409), moving nothing', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 100);
      const target = await createAccount(suite.t, other.sandboxKey);
      const itself = k.body(source, { bank_code: SANDBOX_BANK_CODE, account_number: source, amount: '1' });
      assertError(await k.send(key, itself), 422, 'VALIDATION_FAILED', { fields: ['account_number'] });
      const over = k.body(source, {
        bank_code: SANDBOX_BANK_CODE,
        account_number: target.account_number,
        amount: '100.01',
      });
      assertError(await k.send(key, over), 409, 'INSUFFICIENT_FUNDS');
      for (const ref of [itself.reference, over.reference]) assert.equal(await k.storedWithReference(ref), 0);
      assert.deepEqual(await k.balances(key, source), { balance: 10_000, available: 10_000 });
      assert.deepEqual(await k.balances(other.sandboxKey, target.account_number), {
        balance: 0,
        available: 0,
      });
      assert.deepEqual(await k.entries(other.sandboxKey, target.account_number), []);

      // No fee on a book transfer: the whole balance can go.
      const all = await k.accepted(
        key,
        k.body(source, {
          bank_code: SANDBOX_BANK_CODE,
          account_number: target.account_number,
          amount: '100',
        }),
      );
      assert.equal(all.fee_kobo, 0);
      assert.equal(all.status, 'successful');
      assert.deepEqual(statusesOf(all), ['pending', 'successful']);
      assert.equal(all.session_id, null);
      assert.deepEqual(await k.balances(key, source), { balance: 0, available: 0 });
      assert.deepEqual(await k.balances(other.sandboxKey, target.account_number), {
        balance: 10_000,
        available: 10_000,
      });
      const [debit] = await k.entries(key, source);
      assert.equal(debit.balance_after_kobo, 0);
      assert.deepEqual(debit.counterparty, {
        account_name: target.account_name,
        account_number: target.account_number,
        bank_code: SANDBOX_BANK_CODE,
        bank_name: 'BaaS Partner Bank',
      });
      const [credit] = await k.entries(other.sandboxKey, target.account_number);
      assert.equal(credit.balance_after_kobo, 10_000);
      assert.equal(credit.counterparty.account_number, source);
      const event = (await k.events(key, 'transfer.successful')).find((item) => item.data.id === all.id);
      assert.ok(event, 'the sender hears transfer.successful');
      assert.deepEqual(event.data, await k.read(key, all.id));
      await assertLedgerBalanced(suite.t.db);
    });

    it('settles 20 book transfers A→B and 20 B→A raced together: no deadlock, every entry chained, balances exact', async () => {
      const key = partner.sandboxKey;
      const a = await k.fundedAccount(key, 1_000);
      const b = await k.fundedAccount(other.sandboxKey, 1_000);
      const book = (from: string, to: string, as: string, amount: string) =>
        k.send(as, k.body(from, { bank_code: SANDBOX_BANK_CODE, account_number: to, amount }));
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => [
          book(a, b, key, '10.00'),
          book(b, a, other.sandboxKey, '15.00'),
        ]).flat(),
      );
      for (const response of responses) {
        assert.equal(response.status, 202, response.text);
        assert.equal(response.body.data.status, 'successful');
        assert.equal(response.body.data.fee_kobo, 0);
      }
      assert.deepEqual(await k.balances(key, a), { balance: 110_000, available: 110_000 });
      assert.deepEqual(await k.balances(other.sandboxKey, b), { balance: 90_000, available: 90_000 });
      const aEntries = await k.entries(key, a);
      assert.equal(aEntries.length, 41);
      assert.equal(aEntries.filter((entry) => entry.kind === 'book_transfer').length, 40);
      assert.equal(aEntries[0].balance_after_kobo, 110_000);
      const credited = (await k.events(other.sandboxKey, 'virtual_account.credited')).filter(
        (item) => item.data.account.account_number === b && item.data.transaction.kind === 'book_transfer',
      );
      assert.equal(credited.length, 20, "B's partner hears of each of the 20 credits");
      await assertLedgerBalanced(suite.t.db);
    });

    it('shows transfers on the statement: debits, fees and book transfers, with totals that add up', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      const peer = await k.fundedAccount(other.sandboxKey, 500);
      const sent = await k.accepted(key, k.body(source, { amount: '1000.00' }));
      const refused = await k.accepted(
        key,
        k.body(source, { amount: '700.00', account_number: external('05') }),
      );
      await k.settled(key, sent.id);
      await k.settled(key, refused.id);
      await k.accepted(
        key,
        k.body(source, { bank_code: SANDBOX_BANK_CODE, account_number: peer, amount: '200.00' }),
      );
      await k.accepted(
        other.sandboxKey,
        k.body(peer, { bank_code: SANDBOX_BANK_CODE, account_number: source, amount: '50.00' }),
      );
      const now = suite.t.clock.now();
      const from = new Date(now - 86_400_000).toISOString().slice(0, 10);
      const to = new Date(now).toISOString().slice(0, 10);
      const response = await suite.t.api.get(statementUrl(source, from, to), { token: key });
      assert.equal(response.status, 200, response.text);
      const statement = response.body.data;
      assert.equal(statement.opening_balance_kobo, 0);
      assert.equal(statement.total_credits_kobo, 500_000 + 5_000);
      assert.equal(statement.total_debits_kobo, 100_000 + 1075 + 20_000, 'the failed transfer is not there');
      assert.equal(statement.closing_balance_kobo, 500_000 + 5_000 - 100_000 - 1075 - 20_000);
      assert.equal(statement.total_debits, statement.total_debits_kobo / 100);
      assert.equal(statement.closing_balance_kobo, (await k.balances(key, source)).balance);
      const kinds = statement.transactions.map((entry: Json) => `${entry.type}:${entry.kind}`);
      assert.deepEqual(kinds, [
        'credit:inbound_transfer',
        'debit:transfer',
        'debit:fee',
        'debit:book_transfer',
        'credit:book_transfer',
      ]);
      let running = statement.opening_balance_kobo as number;
      let debits = 0;
      let credits = 0;
      for (const entry of statement.transactions) {
        if (entry.type === 'debit') debits += entry.amount_kobo;
        else credits += entry.amount_kobo;
        running += entry.type === 'debit' ? -entry.amount_kobo : entry.amount_kobo;
        assert.equal(entry.balance_after_kobo, running);
      }
      assert.equal(debits, statement.total_debits_kobo);
      assert.equal(credits, statement.total_credits_kobo);
      assert.equal(running, statement.closing_balance_kobo);
      await assertLedgerBalanced(suite.t.db);
    });

    it('keeps a sandbox transfer out of the live environment of the same partner', async () => {
      const { t } = suite;
      const both = await newPartner(suite, 'live');
      const source = await k.fundedAccount(both.sandboxKey, 5_000);
      const transfer = await k.accepted(both.sandboxKey, k.body(source));
      await k.settled(both.sandboxKey, transfer.id);
      assertError(await t.api.get(transferUrl(transfer.id), { token: both.liveKey }), 404, 'NOT_FOUND');
      assert.deepEqual(await listAll(t, TRANSFERS, both.liveKey), []);
      assert.equal((await listAll(t, TRANSFERS, both.sandboxKey)).length, 1);
      // Nor can live spend from the sandbox account.
      assertError(await k.send(both.liveKey, k.body(source)), 404, 'NOT_FOUND');
      // Live lists its own institution code, not the sandbox's.
      const banks = await t.api.get(BANKS, { token: both.liveKey });
      assert.equal(banks.status, 200, banks.text);
      const codes = banks.body.data.map((bank: Json) => bank.code);
      assert.ok(codes.includes(LIVE_BANK_CODE));
      assert.equal(codes.includes(SANDBOX_BANK_CODE), false);
      await assertLedgerBalanced(t.db);
    });

    it('refuses a cursor issued for another filter or another partner with 422 on cursor', async () => {
      const { t } = suite;
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 5_000);
      for (const ending of ['05', '05']) {
        const made = await k.accepted(key, k.body(source, { account_number: external(ending), amount: '1' }));
        await k.settled(key, made.id);
      }
      const page = await t.api.get(`${TRANSFERS}?status=failed&limit=1`, { token: key });
      assert.equal(page.status, 200, page.text);
      const cursor = encodeURIComponent(page.body.data.next_cursor);
      const next = await t.api.get(`${TRANSFERS}?status=failed&limit=1&cursor=${cursor}`, { token: key });
      assert.equal(next.status, 200, next.text);
      for (const [url, token] of [
        [`${TRANSFERS}?limit=1&cursor=${cursor}`, key],
        [`${TRANSFERS}?status=successful&limit=1&cursor=${cursor}`, key],
        [`${TRANSFERS}?status=failed&source_account_number=${source}&limit=1&cursor=${cursor}`, key],
        [`${TRANSFERS}?status=failed&limit=1&cursor=${cursor}`, other.sandboxKey],
        [`${TRANSFERS}?cursor=not-a-cursor`, key],
      ] as const) {
        assertError(await t.api.get(url, { token }), 422, 'VALIDATION_FAILED', {
          fields: ['cursor'],
          what: url,
        });
      }
    });

    it('enquires again once the cached answer is over 30 minutes old: a new name_enquiry_ref', async () => {
      const { t } = suite;
      const key = partner.sandboxKey;
      const number = external('37');
      const ask = async () => {
        const response = await t.api.post(
          NAME_ENQUIRY,
          { bank_code: '000014', account_number: number },
          { token: key },
        );
        assert.equal(response.status, 200, response.text);
        return response.body.data.name_enquiry_ref as string;
      };
      const first = await ask();
      t.clock.advance(29 * MINUTE);
      assert.equal(await ask(), first, 'reused within 30 minutes');
      t.clock.advance(2 * MINUTE);
      const fresh = await ask();
      assert.notEqual(fresh, first, 'a new enquiry after 31 minutes');
      assert.equal(await ask(), fresh, 'and the new answer is reused');
      // Another partner of the environment gets the cached answer too (per environment, bank, account).
      const theirs = await t.api.post(
        NAME_ENQUIRY,
        { bank_code: '000014', account_number: number },
        { token: other.sandboxKey },
      );
      assert.equal(theirs.body.data.name_enquiry_ref, fresh);
    });

    it('passes npm run ledger:verify after all of the above', async () => {
      const verified = await runScript(suite.t.database, 'ledger-verify.ts');
      assert.equal(verified.code, 0, `${verified.stdout}\n${verified.stderr}`);
      assert.match(verified.stdout, /ledger verified/);
      await assertLedgerBalanced(suite.t.db);
    });
  });

  describe(`transfers: the hold while the bank has not answered [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    // The first status query is ten minutes away: a transfer whose answer timed out stays processing.
    const suite = useApp(dialect.name, { env: { TRANSFER_REQUERY_MS: '600000', TRANSFER_POLL_MS: '50' } });
    const k = kit(suite);
    let partner: PartnerAt<'sandbox'>;
    before(async () => {
      partner = await newPartner(suite, 'sandbox');
    });

    it('holds amount plus fee at once, leaving the ledger balance, and refuses what the rest cannot cover', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 10_000);
      const transfer = await k.accepted(
        key,
        k.body(source, { amount: '6000.00', account_number: external('97') }),
      );
      assert.equal(transfer.status, 'pending');
      assert.equal(transfer.fee_kobo, 2688);
      const held = 600_000 + 2688;
      assert.deepEqual(await k.balances(key, source), { balance: 1_000_000, available: 1_000_000 - held });

      const processing = await k.settled(key, transfer.id, ['processing']);
      assert.equal(processing.session_id, null);
      assert.deepEqual(await k.balances(key, source), { balance: 1_000_000, available: 1_000_000 - held });
      assert.deepEqual(
        (await k.entries(key, source)).map((entry) => entry.kind),
        ['inbound_transfer'],
        'no entry before the outcome',
      );
      await assertLedgerBalanced(suite.t.db);

      // The ledger balance would cover 5,000 + fee; what is available does not.
      const more = k.body(source, { amount: '5000.00' });
      assertError(await k.send(key, more), 409, 'INSUFFICIENT_FUNDS');
      assert.equal(await k.storedWithReference(more.reference), 0);
      const fits = await k.accepted(key, k.body(source, { amount: '3000.00' }));
      assert.equal((await k.settled(key, fits.id)).status, 'successful');
      assert.deepEqual(await k.balances(key, source), {
        balance: 1_000_000 - 300_000 - 1075,
        available: 1_000_000 - 300_000 - 1075 - held,
      });
      assert.equal((await k.read(key, transfer.id)).status, 'processing');
      await assertLedgerBalanced(suite.t.db);
    });

    it('shows the operator the transfer the bank owes an answer on, and passes ledger:verify with the hold in place', async () => {
      const key = partner.sandboxKey;
      const source = await k.fundedAccount(key, 2_000);
      const transfer = await k.accepted(
        key,
        k.body(source, { amount: '100.00', account_number: external('97') }),
      );
      const processing = await k.settled(key, transfer.id, ['processing']);
      const listed = await listAll(
        suite.t,
        `${ADMIN_TRANSFERS}?status=processing&company_id=${partner.companyId}`,
        adminHeaders,
      );
      const item = listed.find((candidate) => candidate.id === transfer.id);
      assert.ok(item, 'listed as processing');
      assert.equal(item.company_id, partner.companyId);
      assert.equal(item.stuck, false, 'not yet 10 minutes old');
      assert.match(item.next_query_at, ISO_INSTANT);
      assert.ok(Date.parse(item.next_query_at) > suite.t.clock.now(), 'the status query is still ahead');
      assert.equal(item.status, processing.status);
      assert.equal(
        (await listAll(suite.t, `${ADMIN_TRANSFERS}?stuck=true`, adminHeaders)).some(
          (candidate) => candidate.id === transfer.id,
        ),
        false,
      );
      assert.deepEqual(await k.balances(key, source), {
        balance: 200_000,
        available: 200_000 - 10_000 - 1075,
      });
      const verified = await runScript(suite.t.database, 'ledger-verify.ts');
      assert.equal(verified.code, 0, `${verified.stdout}\n${verified.stderr}`);
      await assertLedgerBalanced(suite.t.db);
    });
  });

  describe(`transfers in the back office: the list and the daily report [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    // A database of its own: the report counts every partner of the environment.
    const suite = useApp(dialect.name, { env: FAST_WORKER });
    const k = kit(suite);
    let payer: PartnerAt<'sandbox'>;
    let payee: PartnerAt<'sandbox'>;
    let day: string;
    before(() => {
      // Noon of today (UTC): the whole test stays within one UTC day whenever it runs.
      day = new Date(suite.t.clock.now()).toISOString().slice(0, 10);
      pinClock(suite.t, `${day}T12:00:00.000Z`);
    });
    before(async () => {
      payer = await newPartner(suite, 'sandbox');
      payee = await newPartner(suite, 'sandbox');
    });

    const admin = (url: string) => adminGet(suite.t, url);
    const adminList = (query: string): Promise<Json[]> =>
      listAll(suite.t, `${ADMIN_TRANSFERS}?${query}`, adminHeaders, 2);
    async function report(date: string, environment?: string): Promise<Json> {
      const response = await admin(
        `${DAILY_REPORT}?date=${date}${environment ? `&environment=${environment}` : ''}`,
      );
      assert.equal(response.status, 200, response.text);
      return response.body.data;
    }

    it("lists every partner's transfers with filters, and reports the day's money by status", async () => {
      const { t } = suite;
      const a = await k.fundedAccount(payer.sandboxKey, 20_000);
      const b = await k.fundedAccount(payer.sandboxKey, 1_000);
      const c = await k.fundedAccount(payee.sandboxKey, 3_000);
      const plain = await k.accepted(payer.sandboxKey, k.body(a, { amount: '1000.00' }));
      const refused = await k.accepted(
        payer.sandboxKey,
        k.body(a, { amount: '2000.00', account_number: external('05') }),
      );
      const returned = await k.accepted(
        payer.sandboxKey,
        k.body(b, { amount: '500.00', account_number: external('21') }),
      );
      const book = await k.accepted(
        payer.sandboxKey,
        k.body(a, { amount: '300.00', bank_code: SANDBOX_BANK_CODE, account_number: c }),
      );
      const theirs = await k.accepted(payee.sandboxKey, k.body(c, { amount: '100.00' }));
      assert.equal((await k.settled(payer.sandboxKey, plain.id)).status, 'successful');
      assert.equal((await k.settled(payer.sandboxKey, refused.id)).status, 'failed');
      assert.equal(
        (await k.settled(payer.sandboxKey, returned.id, ['reversed', 'failed'])).status,
        'reversed',
      );
      assert.equal((await k.settled(payee.sandboxKey, theirs.id)).status, 'successful');
      const every = [plain, refused, returned, book, theirs];

      const ids = (items: Json[]) => items.map((item) => item.id);
      const all = await adminList('environment=sandbox');
      assert.deepEqual(ids(all), ids(every).reverse(), 'every transfer, newest first');
      for (const item of all) {
        const own = every.find((transfer) => transfer.id === item.id);
        const company = [plain, refused, returned, book].includes(own) ? payer : payee;
        assert.equal(item.company_id, company.companyId);
        assert.equal(typeof item.business_name, 'string');
        assert.ok(item.business_name.length > 0);
        assert.equal(item.stuck, false);
        assert.equal(item.environment, 'sandbox');
        assert.ok(Number.isInteger(item.query_attempts));
        assert.deepEqual(
          Object.fromEntries(TRANSFER_FIELDS.map((field) => [field, item[field]])),
          await k.read(company.sandboxKey, item.id),
          'the transfer as its partner sees it',
        );
      }
      assert.deepEqual(
        ids(await adminList(`company_id=${payer.companyId}`)),
        ids([book, returned, refused, plain]),
      );
      assert.deepEqual(ids(await adminList(`company_id=${payee.companyId}`)), [theirs.id]);
      assert.deepEqual(ids(await adminList('status=failed')), [refused.id]);
      assert.deepEqual(ids(await adminList('status=reversed')), [returned.id]);
      assert.deepEqual(ids(await adminList(`status=successful&company_id=${payee.companyId}`)), [theirs.id]);
      assert.deepEqual(await adminList('environment=live'), []);
      assert.deepEqual(await adminList('stuck=true'), []);
      assertError(await t.api.get(ADMIN_TRANSFERS, { token: payer.sandboxKey }), 401, 'UNAUTHENTICATED');

      const today = await report(day, 'sandbox');
      assert.deepEqual(today, {
        date: day,
        environment: 'sandbox',
        inbound: { count: 3, amount_kobo: 2_400_000 },
        transfers: {
          pending: { count: 0, amount_kobo: 0 },
          processing: { count: 0, amount_kobo: 0 },
          successful: { count: 3, amount_kobo: 100_000 + 30_000 + 10_000 },
          failed: { count: 1, amount_kobo: 200_000 },
          reversed: { count: 1, amount_kobo: 50_000 },
        },
        // The successful transfers' fees and the reversed one's (kept); none for the failed or book one.
        fees_kobo: 3 * 1075,
        balances_kobo: 2_400_000 - 100_000 - 1075 - 1075 - 10_000 - 1075,
      });
      let sum = 0;
      for (const [key, account] of [
        [payer.sandboxKey, a],
        [payer.sandboxKey, b],
        [payee.sandboxKey, c],
      ] as const) {
        sum += (await k.balances(key, account)).balance;
      }
      assert.equal(today.balances_kobo, sum, "the sum of every account's balance");
      const live = await report(day);
      assert.equal(live.environment, 'live', 'live by default');
      assert.deepEqual(live.inbound, { count: 0, amount_kobo: 0 });
      assert.equal(live.transfers.successful.count, 0);
      assert.equal(live.fees_kobo, 0);
      assert.equal(live.balances_kobo, 0);

      // The next day: a credit lands; the day before still ends where it ended.
      t.clock.advance(24 * 60 * MINUTE);
      const next = new Date(t.clock.now()).toISOString().slice(0, 10);
      await k.fund(payer.sandboxKey, a, 70);
      assert.deepEqual(await report(day, 'sandbox'), today, 'a closed day does not change');
      const after = await report(next, 'sandbox');
      assert.deepEqual(after.inbound, { count: 1, amount_kobo: 7_000 });
      assert.equal(after.transfers.successful.count, 0, 'transfers are counted on the day they were made');
      assert.equal(after.fees_kobo, 0);
      assert.equal(after.balances_kobo, sum + 7_000);
      const previous = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      const before = await report(previous, 'sandbox');
      assert.equal(before.inbound.count, 0);
      assert.equal(before.balances_kobo, 0, 'nothing existed the day before');
      assertError(await admin(`${DAILY_REPORT}?date=yesterday`), 422, 'VALIDATION_FAILED', {
        fields: ['date'],
      });
      await assertLedgerBalanced(t.db);
    });
  });
}
