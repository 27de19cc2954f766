import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, retryAfterSeconds, UUID, until } from '../support/assertions.js';
import { uniqueSuffix } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  accountUrl,
  BANKS,
  creditUrl,
  EVENTS,
  lifecycleUrl,
  NAME_ENQUIRY,
  TRANSFERS,
  transactionsUrl,
  transferUrl,
} from '../support/paths.js';

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
      assert.equal(event.data.status, 'successful');
      assert.equal(event.data.session_id, done.session_id);
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
      assert.match(done.failure_reason, /do not honor/);
      assert.deepEqual(await k.balances(key, source), { balance: 500_000, available: 500_000 });
      const entries = await k.entries(key, source);
      assert.deepEqual(
        entries.map((entry) => entry.kind),
        ['inbound_transfer'],
        'nothing but the credit',
      );
      const event = (await k.events(key, 'transfer.failed')).find((item) => item.data.id === transfer.id);
      assert.ok(event, 'a transfer.failed event');
      assert.equal(event.data.failure_reason, done.failure_reason);
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
      // Booked once, however many times the bank was asked.
      const kinds = (await k.entries(key, source)).map((entry) => entry.kind);
      assert.deepEqual(kinds, ['fee', 'transfer', 'inbound_transfer']);
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
      const [reversal, fee, debit] = await k.entries(key, source);
      assert.equal(debit.kind, 'transfer');
      assert.equal(fee.kind, 'fee');
      assert.equal(reversal.type, 'credit');
      assert.equal(reversal.kind, 'reversal');
      assert.equal(reversal.amount_kobo, 100_000);
      assert.equal(reversal.reference, `REV-${transfer.id}`);
      assert.equal(reversal.transfer_id, transfer.id);
      assert.deepEqual(await k.balances(key, source), {
        balance: 500_000 - 1075,
        available: 500_000 - 1075,
      });
      const types = new Set<string>();
      for (const type of ['transfer.successful', 'transfer.reversed']) {
        if ((await k.events(key, type)).some((item) => item.data.id === transfer.id)) types.add(type);
      }
      assert.deepEqual([...types], ['transfer.successful', 'transfer.reversed']);
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
        ['amount', { amount: '-1' }],
        ['amount', { amount: '1.001' }],
        ['amount', { amount: 10_000_000.01 }],
        ['amount', { amount: 'ten' }],
        ['amount', { amount: undefined }],
        ['reference', { reference: 'has space' }],
        ['reference', { reference: 'x'.repeat(65) }],
        ['reference', { reference: '   ' }],
        ['narration', { narration: 'n'.repeat(101) }],
        ['narration', { narration: 'pay\u202Eme' }],
        ['bank_code', { bank_code: '123456' }],
        ['account_number', { account_number: '12345' }],
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
      const atLimit = await k.accepted(key, k.body(source, { reference: 'R'.repeat(64), amount: '1' }));
      assert.equal(atLimit.reference, 'R'.repeat(64));
      assert.equal(atLimit.narration, atLimit.reference, 'narration defaults to the reference');
      await k.settled(key, atLimit.id);
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
  });
}
