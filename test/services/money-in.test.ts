import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { nuban } from '../../src/modules/virtual-accounts/nuban.js';
import { sign } from '../../src/platform/crypto/standard-webhooks.js';
import {
  type AppContext,
  DIALECTS,
  TEST_ADMIN_KEY,
  TEST_CONNECTOR_SECRET,
  TEST_DATABASE_URL,
  useApp,
} from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import {
  connectorHeaders,
  notification,
  notify,
  ORIGINATOR,
  postSigned,
  type SignOptions,
  sessionId,
} from '../support/bank.js';
import { nextMillisecond } from '../support/clock.js';
import { type ApiResponse, allPages } from '../support/http.js';
import { assertLedgerBalanced } from '../support/ledger.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  ADMIN_CREDIT_NOTIFICATIONS,
  AUDIT_EVENTS,
  accountUrl,
  BANK_CREDIT_NOTIFICATIONS,
  BANK_TRANSFER_UPDATES,
  creditUrl,
  EVENTS,
  lifecycleUrl,
  transactionsUrl,
} from '../support/paths.js';

/*
 * Money in (issue 28): the sponsor bank's connector reports inward NIP transfers, each credited to the
 * live account it names once per NIBSS session id, over a Standard Webhooks signature; sandbox
 * simulate-credit runs the same path; operators see every well-formed notification.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const ADMIN = { token: TEST_ADMIN_KEY };
const NOTIFICATION_FIELDS = [
  'account_number',
  'amount',
  'amount_kobo',
  'business_name',
  'company_id',
  'error_code',
  'id',
  'narration',
  'originator',
  'outcome',
  'received_at',
  'session_id',
  'transaction_at',
  'transaction_id',
];

type Body = ReturnType<typeof notification>;

/** Signs with the app's clock (a TestClock the tests may move). */
const send = (suite: AppContext, body: unknown, options: SignOptions = {}) =>
  notify(suite.t.api, body, { nowMs: suite.t.clock.now(), ...options });

/** A notification that must credit: 200 credited. */
async function credited(suite: AppContext, body: unknown) {
  const response = await send(suite, body);
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.status, 'success');
  assert.equal(response.body.data.outcome, 'credited', response.text);
  return response.body.data.transaction;
}

/** A 10-digit number no account of this app has (a live-looking NUBAN at another bank code). */
const unknownNumber = () => nuban('000777', String(randomInt(0, 1e9)).padStart(9, '0'));

const entriesOfSession = (suite: AppContext, session: string) =>
  suite.t.db.selectFrom('account_transactions').selectAll().where('session_id', '=', session).execute();

const notificationsOfSession = (suite: AppContext, session: string) =>
  suite.t.db
    .selectFrom('bank_credit_notifications')
    .selectAll()
    .where('session_id', '=', session)
    .orderBy('received_at')
    .execute();

async function balanceOf(suite: AppContext, accountNumber: string, token: string) {
  const response = await suite.t.api.get(accountUrl(accountNumber), { token });
  assert.equal(response.status, 200, response.text);
  return response.body.data.balance_kobo as number;
}

/** The operator's list of notifications, every page. */
async function listed(suite: AppContext, query = '', limit = 100) {
  const url = `${ADMIN_CREDIT_NOTIFICATIONS}${query ? `?${query}` : ''}`;
  // biome-ignore lint/suspicious/noExplicitAny: list items as the API returns them.
  return (await allPages<any>(suite.t, url, TEST_ADMIN_KEY, limit)).flat();
}

/** Waits until the clock is in the first third of a second, so "exactly 300 s ago" stays 300 s. */
async function earlyInSecond(suite: AppContext) {
  for (let guard = 0; guard < 200 && suite.t.clock.now() % 1000 > 300; guard++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const nowSeconds = (suite: AppContext) => Math.floor(suite.t.clock.now() / 1000);

for (const dialect of DIALECTS) {
  describe(`money in: credit notifications from the sponsor bank [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name);
    let live: PartnerAt<'live'>;
    before(async () => {
      live = await newPartner(suite, 'live');
    });

    const liveAccount = () => createAccount(suite.t, live.liveKey);
    const balance = (accountNumber: string) => balanceOf(suite, accountNumber, live.liveKey);

    it('credits the live account: 200 credited with the transaction, its event with the account after it, and a system audit row', async () => {
      const { t } = suite;
      const account = await liveAccount();
      const originator = { account_name: 'TUNDE BAKARE', account_number: '0987654321', bank_code: '058' };
      const body = notification(account.account_number, {
        amount_kobo: 1_234_567,
        narration: 'Invoice 118',
        originator,
        transaction_at: '2026-11-27T15:30:12+01:00',
      });
      const response = await send(suite, body);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.status, 'success');
      assert.equal(response.body.data.outcome, 'credited');
      const transaction = response.body.data.transaction;
      assert.match(transaction.id, UUID);
      assert.equal(transaction.type, 'credit');
      assert.equal(transaction.kind, 'inbound_transfer');
      assert.equal(transaction.amount_kobo, 1_234_567);
      assert.equal(transaction.amount, 12_345.67);
      assert.equal(transaction.balance_after_kobo, 1_234_567);
      assert.equal(transaction.balance_after, 12_345.67);
      assert.equal(transaction.currency, 'NGN');
      assert.equal(transaction.narration, 'Invoice 118');
      assert.equal(transaction.reference, `NIP-${body.session_id}`);
      assert.equal(transaction.session_id, body.session_id);
      assert.deepEqual(transaction.counterparty, { ...originator, bank_name: null });
      assert.equal(transaction.transfer_id, null);
      assert.match(transaction.created_at, ISO_INSTANT);

      assert.equal(await balance(account.account_number), 1_234_567);
      const entries = await entriesOfSession(suite, body.session_id);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.id, transaction.id);
      assert.equal(entries[0]!.environment, 'live');
      assert.equal(entries[0]!.account_id, account.id);
      await assertLedgerBalanced(t.db);

      const events = await t.api.get(`${EVENTS}?type=virtual_account.credited&limit=100`, {
        token: live.liveKey,
      });
      assert.equal(events.status, 200, events.text);
      const mine = events.body.data.items.filter(
        (item: { data: { transaction: { id: string } } }) => item.data.transaction.id === transaction.id,
      );
      assert.equal(mine.length, 1, events.text);
      const event = mine[0];
      assert.equal(event.environment, 'live');
      assert.deepEqual(event.data.transaction, transaction);
      assert.equal(event.data.transaction.session_id, body.session_id);
      assert.deepEqual(event.data.transaction.counterparty, { ...originator, bank_name: null });
      assert.equal(event.data.account.account_number, account.account_number);
      assert.equal(event.data.account.balance_kobo, 1_234_567);
      assert.equal(event.data.account.available_balance_kobo, 1_234_567);
      assert.equal(event.data.account.balance, 12_345.67);

      const audit = await t.api.get(
        `${AUDIT_EVENTS}?company_id=${live.companyId}&action=virtual_account.credited&limit=100`,
        ADMIN,
      );
      assert.equal(audit.status, 200, audit.text);
      const rows = audit.body.data.items.filter(
        (item: { metadata: Record<string, unknown> | null }) =>
          item.metadata?.['session_id'] === body.session_id,
      );
      assert.equal(rows.length, 1, audit.text);
      assert.equal(rows[0].action, 'virtual_account.credited');
      assert.equal(rows[0].company_id, live.companyId);
      assert.deepEqual(rows[0].actor, { type: 'system', id: 'bank_connector', name: null, email: null });
      assert.deepEqual(rows[0].target, { type: 'virtual_account', id: account.id });
      assert.equal(rows[0].metadata.reference, `NIP-${body.session_id}`);
      assert.equal(rows[0].metadata.amount_kobo, 1_234_567);

      const [stored, ...more] = await notificationsOfSession(suite, body.session_id);
      assert.deepEqual(more, []);
      assert.equal(stored!.outcome, 'credited');
      assert.equal(stored!.transaction_id, transaction.id);
      assert.equal(Number(stored!.transaction_at), Date.parse('2026-11-27T14:30:12Z'));
    });

    it('keeps the originator bank_name when the bank gives one', async () => {
      const account = await liveAccount();
      const transaction = await credited(suite, notification(account.account_number));
      assert.deepEqual(transaction.counterparty, ORIGINATOR);
    });

    it('answers the same session id again with 200 duplicate and the same transaction, crediting once', async () => {
      const { t } = suite;
      const account = await liveAccount();
      const body = notification(account.account_number, { amount_kobo: 50_000 });
      const first = await credited(suite, body);
      for (const repeat of [body, { ...body, amount_kobo: 99_999, narration: 'changed' }]) {
        const again = await send(suite, repeat);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.body.data.outcome, 'duplicate');
        assert.deepEqual(again.body.data.transaction, first);
      }
      assert.equal(await balance(account.account_number), 50_000);
      assert.equal((await entriesOfSession(suite, body.session_id)).length, 1);
      const stored = await notificationsOfSession(suite, body.session_id);
      assert.deepEqual(
        stored.map((row) => [row.outcome, row.transaction_id]),
        [
          ['credited', first.id],
          ['duplicate', first.id],
          ['duplicate', first.id],
        ],
      );
      await assertLedgerBalanced(t.db);
    });

    it('credits once when the same notification comes 20 times concurrently: one credited, 19 duplicates, one transaction', async () => {
      const { t } = suite;
      const account = await liveAccount();
      const body = notification(account.account_number, { amount_kobo: 777_777 });
      const responses = await Promise.all(Array.from({ length: 20 }, () => send(suite, body)));
      assert.deepEqual(
        responses.filter((response) => response.status !== 200).map((response) => response.text),
        [],
      );
      const outcomes = responses.map((response) => response.body.data.outcome as string);
      assert.equal(outcomes.filter((outcome) => outcome === 'credited').length, 1, outcomes.join());
      assert.equal(outcomes.filter((outcome) => outcome === 'duplicate').length, 19, outcomes.join());
      const ids = new Set(responses.map((response) => response.body.data.transaction.id));
      assert.equal(ids.size, 1);
      assert.equal(await balance(account.account_number), 777_777);
      assert.equal((await entriesOfSession(suite, body.session_id)).length, 1);
      const stored = await notificationsOfSession(suite, body.session_id);
      assert.equal(stored.length, 20);
      assert.equal(stored.filter((row) => row.outcome === 'credited').length, 1);
      await assertLedgerBalanced(t.db);
    });

    it('treats a live session id as unique across the institution: naming another account, it is a duplicate and credits nothing', async () => {
      const first = await liveAccount();
      const second = await liveAccount();
      const body = notification(first.account_number, { amount_kobo: 10_000 });
      const transaction = await credited(suite, body);
      const again = await send(suite, { ...body, account_number: second.account_number });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.outcome, 'duplicate');
      assert.equal(again.body.data.transaction.id, transaction.id);
      assert.equal(await balance(second.account_number), 0);
      assert.equal(await balance(first.account_number), 10_000);
    });

    it('answers 404 NOT_FOUND for an unknown account number and for a sandbox account’s, crediting nothing and keeping it as refused', async () => {
      const { t } = suite;
      const sandboxAccount = await createAccount(suite.t, live.sandboxKey);
      for (const accountNumber of [unknownNumber(), sandboxAccount.account_number]) {
        const body = notification(accountNumber);
        assertError(await send(suite, body), 404, 'NOT_FOUND', { what: accountNumber });
        assert.deepEqual(await entriesOfSession(suite, body.session_id), []);
        const stored = await notificationsOfSession(suite, body.session_id);
        assert.deepEqual(
          stored.map((row) => [row.outcome, row.error_code, row.transaction_id]),
          [['refused', 'NOT_FOUND', null]],
        );
      }
      assert.equal(await balanceOf(suite, sandboxAccount.account_number, live.sandboxKey), 0);
      await assertLedgerBalanced(t.db);
    });

    it('refuses an inactive account with 409 ACCOUNT_INACTIVE and a closed one with 409 ACCOUNT_CLOSED, crediting nothing', async () => {
      const inactive = await liveAccount();
      const closed = await liveAccount();
      const pause = await suite.t.api.post(
        lifecycleUrl(inactive.account_number, 'deactivate'),
        { reason: 'Customer asked' },
        { token: live.liveKey },
      );
      assert.equal(pause.status, 200, pause.text);
      const close = await suite.t.api.post(
        lifecycleUrl(closed.account_number, 'close'),
        { reason: 'Customer left' },
        { token: live.liveKey },
      );
      assert.equal(close.status, 200, close.text);
      for (const [account, code] of [
        [inactive, 'ACCOUNT_INACTIVE'],
        [closed, 'ACCOUNT_CLOSED'],
      ] as const) {
        const body = notification(account.account_number);
        assertError(await send(suite, body), 409, code);
        assert.deepEqual(await entriesOfSession(suite, body.session_id), []);
        const stored = await notificationsOfSession(suite, body.session_id);
        assert.deepEqual(
          stored.map((row) => [row.outcome, row.error_code, row.partner_id, row.account_id]),
          [['refused', code, live.companyId, account.id]],
        );
        assert.equal(await balance(account.account_number), 0);
      }
    });

    it('does not consume a refused session id: after reactivation the same notification credits', async () => {
      const account = await liveAccount();
      const url = (action: 'deactivate' | 'reactivate') => lifecycleUrl(account.account_number, action);
      const paused = await suite.t.api.post(
        url('deactivate'),
        { reason: 'KYC review' },
        { token: live.liveKey },
      );
      assert.equal(paused.status, 200, paused.text);
      const body = notification(account.account_number, { amount_kobo: 31_400 });
      assertError(await send(suite, body), 409, 'ACCOUNT_INACTIVE');
      const resumed = await suite.t.api.post(url('reactivate'), undefined, { token: live.liveKey });
      assert.equal(resumed.status, 200, resumed.text);
      const transaction = await credited(suite, body);
      assert.equal(transaction.session_id, body.session_id);
      assert.equal(await balance(account.account_number), 31_400);
      const stored = await notificationsOfSession(suite, body.session_id);
      assert.deepEqual(
        stored.map((row) => row.outcome),
        ['refused', 'credited'],
      );
    });

    it('answers a repeat of a credited session id with 200 duplicate even after the account was deactivated (a 409 would make the bank return money already credited)', async () => {
      const account = await liveAccount();
      const body = notification(account.account_number, { amount_kobo: 42_000 });
      const transaction = await credited(suite, body);
      const paused = await suite.t.api.post(
        lifecycleUrl(account.account_number, 'deactivate'),
        { reason: 'Fraud review' },
        { token: live.liveKey },
      );
      assert.equal(paused.status, 200, paused.text);
      const again = await send(suite, body);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.outcome, 'duplicate');
      assert.equal(again.body.data.transaction.id, transaction.id);
      assert.equal(await balance(account.account_number), 42_000);
    });

    it('answers 401 SIGNATURE_INVALID to a missing, wrong, foreign-secret, stale, early or altered signature, storing nothing', async () => {
      const { t } = suite;
      const account = await liveAccount();
      const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
      const now = nowSeconds(suite);
      const cases: Array<[string, (body: Body) => Promise<ApiResponse>]> = [
        ['no signature headers', (body) => t.api.post(BANK_CREDIT_NOTIFICATIONS, body)],
        [
          'only webhook-signature',
          (body) => {
            const text = JSON.stringify(body);
            const headers = connectorHeaders(text, { nowMs: t.clock.now() });
            return t.api.post(BANK_CREDIT_NOTIFICATIONS, undefined, {
              body: text,
              headers: {
                'content-type': 'application/json',
                'webhook-signature': headers['webhook-signature']!,
              },
            });
          },
        ],
        [
          'a wrong signature',
          (body) => {
            const text = JSON.stringify(body);
            const headers = connectorHeaders(text, { nowMs: t.clock.now() });
            headers['webhook-signature'] = `v1,${randomBytes(32).toString('base64')}`;
            return t.api.post(BANK_CREDIT_NOTIFICATIONS, undefined, { body: text, headers });
          },
        ],
        ['signed with another secret', (body) => send(suite, body, { secret: otherSecret })],
        ['a timestamp 6 minutes old', (body) => send(suite, body, { timestampSeconds: now - 360 })],
        ['a timestamp 6 minutes ahead', (body) => send(suite, body, { timestampSeconds: now + 360 })],
        [
          'a body altered after signing',
          (body) => {
            const signed = JSON.stringify(body);
            const sent = JSON.stringify({ ...body, amount_kobo: body.amount_kobo * 100 });
            return t.api.post(BANK_CREDIT_NOTIFICATIONS, undefined, {
              body: sent,
              headers: connectorHeaders(signed, { nowMs: t.clock.now() }),
            });
          },
        ],
      ];
      for (const [what, request] of cases) {
        const body = notification(account.account_number);
        assertError(await request(body), 401, 'SIGNATURE_INVALID', { what });
        assert.deepEqual(await entriesOfSession(suite, body.session_id), [], what);
        assert.deepEqual(await notificationsOfSession(suite, body.session_id), [], what);
      }
      assert.equal(await balance(account.account_number), 0);
    });

    it('accepts two space-separated signatures whose second is valid (secret rotation)', async () => {
      const { t } = suite;
      const account = await liveAccount();
      const body = notification(account.account_number, { amount_kobo: 600 });
      const text = JSON.stringify(body);
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const timestamp = nowSeconds(suite);
      const oldSecret = `whsec_${randomBytes(32).toString('base64')}`;
      const signature = sign([oldSecret, TEST_CONNECTOR_SECRET], id, timestamp, text);
      assert.equal(signature.split(' ').length, 2);
      const response = await t.api.post(BANK_CREDIT_NOTIFICATIONS, undefined, {
        body: text,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.outcome, 'credited');
      assert.equal(await balance(account.account_number), 600);
    });

    it('accepts a timestamp exactly 5 minutes behind or ahead of the server clock (the tolerance is inclusive)', async () => {
      const account = await liveAccount();
      for (const offset of [-300, 300]) {
        await earlyInSecond(suite);
        const body = notification(account.account_number, { amount_kobo: 100 });
        const response = await send(suite, body, { timestampSeconds: nowSeconds(suite) + offset });
        assert.equal(response.status, 200, `${offset} s: ${response.text}`);
        assert.equal(response.body.data.outcome, 'credited');
      }
      assert.equal(await balance(account.account_number), 200);
    });

    it('answers 422 VALIDATION_FAILED naming the field for a malformed notification, storing nothing', async () => {
      const account = await liveAccount();
      const base = () => notification(account.account_number);
      const { originator: _omitted, ...withoutOriginator } = base();
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['a 29-digit session id', { ...base(), session_id: sessionId().slice(1) }, 'session_id'],
        ['a 31-digit session id', { ...base(), session_id: `${sessionId()}1` }, 'session_id'],
        ['a 9-digit account number', { ...base(), account_number: '123456789' }, 'account_number'],
        ['amount_kobo 0', { ...base(), amount_kobo: 0 }, 'amount_kobo'],
        ['amount_kobo -5', { ...base(), amount_kobo: -5 }, 'amount_kobo'],
        ['amount_kobo 1.5', { ...base(), amount_kobo: 1.5 }, 'amount_kobo'],
        ['amount_kobo "100"', { ...base(), amount_kobo: '100' }, 'amount_kobo'],
        ['amount_kobo over 1e14', { ...base(), amount_kobo: 100_000_000_000_001 }, 'amount_kobo'],
        ['no originator', withoutOriginator, 'originator'],
        [
          'an originator bank code of 4 digits',
          { ...base(), originator: { ...ORIGINATOR, bank_code: '0001' } },
          'originator.bank_code',
        ],
        ['a date without time', { ...base(), transaction_at: '2026-11-27' }, 'transaction_at'],
        ['a date-time without zone', { ...base(), transaction_at: '2026-11-27T14:30:12' }, 'transaction_at'],
        ['an impossible date-time', { ...base(), transaction_at: '2026-13-45T25:61:00Z' }, 'transaction_at'],
        ['text for a date-time', { ...base(), transaction_at: 'yesterday' }, 'transaction_at'],
      ];
      for (const [what, body, field] of cases) {
        const response = await send(suite, body);
        assertError(response, 422, 'VALIDATION_FAILED', { fields: [field], what });
        const session = String(body['session_id']);
        assert.deepEqual(await entriesOfSession(suite, session), [], what);
        assert.deepEqual(await notificationsOfSession(suite, session), [], what);
      }
      assert.equal(await balance(account.account_number), 0);
    });

    it('cleans the bank’s text instead of refusing it: control and bidi characters become spaces, runs collapse, cut to 255 / 200', async () => {
      const account = await liveAccount();
      const narration = `  Rent\nJune\t2026 \u202Egnp.exe\r\n  ${'a'.repeat(300)}`;
      const name = `ADA\u0000 OBI\r\nLTD\u202D\u0007${'B'.repeat(250)}`;
      const body = notification(account.account_number, {
        narration,
        originator: { ...ORIGINATOR, account_name: name },
      });
      const transaction = await credited(suite, body);
      const expectedNarration = `Rent June 2026 gnp.exe ${'a'.repeat(300)}`.slice(0, 255);
      const expectedName = `ADA OBI LTD ${'B'.repeat(250)}`.slice(0, 200);
      assert.equal(transaction.narration, expectedNarration);
      assert.equal(transaction.narration.length, 255);
      assert.equal(transaction.counterparty.account_name, expectedName);
      assert.equal(transaction.counterparty.account_name.length, 200);
      const [stored] = await notificationsOfSession(suite, body.session_id);
      assert.equal(stored!.narration, expectedNarration);
      assert.equal(stored!.originator_account_name, expectedName);
    });

    it('chains balance_after through several credits: each is the previous plus its amount, the last is the balance', async () => {
      const { t } = suite;
      const account = await liveAccount();
      const amounts = [1, 99, 250_000, 1_000_000_000_000, 37, 12_345_678];
      for (const amount_kobo of amounts) {
        await nextMillisecond();
        await credited(suite, notification(account.account_number, { amount_kobo }));
      }
      const pages = await allPages(t, transactionsUrl(account.account_number), live.liveKey, 4);
      const items = pages.flat() as Array<{ amount_kobo: number; balance_after_kobo: number; kind: string }>;
      assert.deepEqual(
        items.map((item) => item.amount_kobo),
        [...amounts].reverse(),
      );
      let previous = 0;
      for (const item of [...items].reverse()) {
        assert.equal(item.kind, 'inbound_transfer');
        assert.equal(item.balance_after_kobo, previous + item.amount_kobo);
        previous = item.balance_after_kobo;
      }
      const total = amounts.reduce((sum, amount) => sum + amount, 0);
      assert.equal(previous, total);
      assert.equal(await balance(account.account_number), total);
      await assertLedgerBalanced(t.db);
    });

    it('answers transfer updates 404 NOT_FOUND when signed (no transfer exists), 401 unsigned, 422 for a bad status', async () => {
      const { t } = suite;
      const update = {
        reference: 'TRF_0001',
        status: 'successful',
        session_id: sessionId(),
        response_code: '00',
      };
      const nowMs = t.clock.now();
      assertError(await postSigned(t.api, BANK_TRANSFER_UPDATES, update, { nowMs }), 404, 'NOT_FOUND');
      assertError(
        await postSigned(
          t.api,
          BANK_TRANSFER_UPDATES,
          { reference: 'TRF_0002', status: 'reversed' },
          { nowMs },
        ),
        404,
        'NOT_FOUND',
      );
      assertError(await t.api.post(BANK_TRANSFER_UPDATES, update), 401, 'SIGNATURE_INVALID');
      assertError(
        await postSigned(t.api, BANK_TRANSFER_UPDATES, { ...update, status: 'done' }, { nowMs }),
        422,
        'VALIDATION_FAILED',
        { fields: ['status'] },
      );
    });
  });

  describe(`money in: sandbox simulate-credit runs the same path [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name);
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    let live: PartnerAt<'live'>;
    before(async () => {
      [a, b, live] = await Promise.all([
        newPartner(suite, 'sandbox'),
        newPartner(suite, 'sandbox'),
        newPartner(suite, 'live'),
      ]);
    });

    it('credits with the given originator and session id: 201, the transaction carries them', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const session = sessionId();
      const response = await suite.t.api.post(
        creditUrl(account.account_number),
        { amount: '2500.00', narration: 'Invoice 9', originator: ORIGINATOR, session_id: session },
        { token: a.sandboxKey },
      );
      assert.equal(response.status, 201, response.text);
      const { transaction, account: after } = response.body.data;
      assert.equal(transaction.kind, 'inbound_transfer');
      assert.equal(transaction.amount_kobo, 250_000);
      assert.equal(transaction.session_id, session);
      assert.deepEqual(transaction.counterparty, ORIGINATOR);
      assert.equal(after.balance_kobo, 250_000);
    });

    it('defaults to the sandbox sender and a new 30-digit session id', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const sessions = new Set<string>();
      for (let i = 0; i < 2; i++) {
        const response = await suite.t.api.post(
          creditUrl(account.account_number),
          { amount: 10 },
          { token: a.sandboxKey },
        );
        assert.equal(response.status, 201, response.text);
        const { transaction } = response.body.data;
        assert.deepEqual(transaction.counterparty, {
          account_name: 'SANDBOX SENDER',
          account_number: '9990000001',
          bank_code: '999998',
          bank_name: 'Sandbox Bank',
        });
        assert.match(transaction.session_id, /^[0-9]{30}$/);
        sessions.add(transaction.session_id);
      }
      assert.equal(sessions.size, 2);
      assert.equal(await balanceOf(suite, account.account_number, a.sandboxKey), 2000);
    });

    it('answers the same session id again by the same partner with 200 and the earlier credit; another partner’s is its own (201)', async () => {
      const mine = await createAccount(suite.t, a.sandboxKey);
      const theirs = await createAccount(suite.t, b.sandboxKey);
      const session = sessionId();
      const first = await suite.t.api.post(
        creditUrl(mine.account_number),
        { amount: 5, session_id: session },
        { token: a.sandboxKey },
      );
      assert.equal(first.status, 201, first.text);
      const again = await suite.t.api.post(
        creditUrl(mine.account_number),
        { amount: 7, session_id: session },
        { token: a.sandboxKey },
      );
      assert.equal(again.status, 200, again.text);
      assert.match(again.body.message, /already credited/);
      assert.equal(again.body.data.transaction.id, first.body.data.transaction.id);
      assert.equal(again.body.data.transaction.amount_kobo, 500);
      assert.equal(await balanceOf(suite, mine.account_number, a.sandboxKey), 500);

      const other = await suite.t.api.post(
        creditUrl(theirs.account_number),
        { amount: 7, session_id: session },
        { token: b.sandboxKey },
      );
      assert.equal(other.status, 201, other.text);
      assert.notEqual(other.body.data.transaction.id, first.body.data.transaction.id);
      assert.equal(await balanceOf(suite, theirs.account_number, b.sandboxKey), 700);
      await assertLedgerBalanced(suite.t.db);
    });

    it('answers 403 SANDBOX_ONLY in live, with or without a session id', async () => {
      const account = await createAccount(suite.t, live.liveKey);
      for (const body of [{ amount: 1 }, { amount: 1, session_id: sessionId(), originator: ORIGINATOR }]) {
        assertError(
          await suite.t.api.post(creditUrl(account.account_number), body, { token: live.liveKey }),
          403,
          'SANDBOX_ONLY',
        );
      }
      assert.equal(await balanceOf(suite, account.account_number, live.liveKey), 0);
    });

    it('replays the first answer under the same Idempotency-Key; the same session id under another key is the 200 repeat', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const session = sessionId();
      const body = { amount: 3, session_id: session };
      const post = (key: string) =>
        suite.t.api.post(creditUrl(account.account_number), body, {
          token: a.sandboxKey,
          headers: { 'idempotency-key': key },
        });
      const first = await post('money-in-1');
      assert.equal(first.status, 201, first.text);
      const replay = await post('money-in-1');
      assert.equal(replay.status, 201, replay.text);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, first.text);
      const repeat = await post('money-in-2');
      assert.equal(repeat.status, 200, repeat.text);
      assert.equal(repeat.body.data.transaction.id, first.body.data.transaction.id);
      const replayedRepeat = await post('money-in-2');
      assert.equal(replayedRepeat.status, 200, replayedRepeat.text);
      assert.equal(replayedRepeat.text, repeat.text);
      assert.equal(await balanceOf(suite, account.account_number, a.sandboxKey), 300);
    });
  });

  describe(`money in: the operator's list of notifications [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let live: PartnerAt<'live'>;
    let businessName: string;
    /** The notifications sent, by name, in the order sent. */
    const sent: Record<string, Body> = {};
    const transactions: Record<string, string> = {};
    let inactive: { id: string; account_number: string };
    let active: { id: string; account_number: string };
    const days = { yesterday: '', today: '', tomorrow: '' };
    const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

    before(async () => {
      const { t } = suite;
      live = await newPartner(suite, 'live');
      const partner = await t.db
        .selectFrom('partners')
        .select('business_name')
        .where('id', '=', live.companyId)
        .executeTakeFirstOrThrow();
      businessName = partner.business_name;
      active = await createAccount(t, live.liveKey);
      inactive = await createAccount(t, live.liveKey);
      const paused = await t.api.post(
        lifecycleUrl(inactive.account_number, 'deactivate'),
        { reason: 'Review' },
        { token: live.liveKey },
      );
      assert.equal(paused.status, 200, paused.text);

      const at = async (name: string, body: Body, status: number) => {
        await nextMillisecond();
        const response = await send(suite, body);
        assert.equal(response.status, status, `${name}: ${response.text}`);
        if (status === 200) transactions[name] = response.body.data.transaction.id;
        sent[name] = body;
      };
      days.today = dayOf(t.clock.now());
      t.clock.advance(-DAY_MS);
      days.yesterday = dayOf(t.clock.now());
      await at(
        'yesterday',
        notification(active.account_number, {
          amount_kobo: 123_456,
          narration: 'Yesterday',
          transaction_at: '2026-11-26T23:59:59.5-01:00',
        }),
        200,
      );
      t.clock.advance(DAY_MS);
      const first = notification(active.account_number, { amount_kobo: 1_000 });
      await at('credited', first, 200);
      await at('duplicate', first, 200);
      const { bank_name: _none, ...withoutBankName } = ORIGINATOR;
      await at(
        'unknown',
        notification(unknownNumber(), { originator: withoutBankName, narration: undefined }),
        404,
      );
      await at('inactive', notification(inactive.account_number), 409);
      t.clock.advance(DAY_MS);
      days.tomorrow = dayOf(t.clock.now());
      await at('tomorrow', notification(active.account_number, { amount_kobo: 5 }), 200);
      t.clock.advance(-DAY_MS);
    });

    // biome-ignore lint/suspicious/noExplicitAny: list items as the API returns them.
    const names = (items: any[]) =>
      items.map(
        (item) =>
          Object.entries(sent).find(
            ([name, body]) =>
              body.session_id === item.session_id &&
              (name !== 'duplicate' || item.outcome === 'duplicate') &&
              (name !== 'credited' || item.outcome === 'credited'),
          )?.[0] ?? `unexpected ${item.session_id}`,
      );

    it('lists every well-formed notification newest first with its outcome, account and partner', async () => {
      const items = await listed(suite);
      assert.deepEqual(names(items), [
        'tomorrow',
        'inactive',
        'unknown',
        'duplicate',
        'credited',
        'yesterday',
      ]);
      for (const item of items) {
        assert.deepEqual(Object.keys(item).sort(), NOTIFICATION_FIELDS);
        assert.match(item.id, UUID);
        assert.match(item.received_at, ISO_INSTANT);
        assert.match(item.transaction_at, ISO_INSTANT);
        assert.equal(item.amount, item.amount_kobo / 100);
      }
      const byName = Object.fromEntries(names(items).map((name, index) => [name, items[index]]));
      const yesterday = byName['yesterday'];
      assert.deepEqual(
        {
          session_id: yesterday.session_id,
          account_number: yesterday.account_number,
          amount: yesterday.amount,
          amount_kobo: yesterday.amount_kobo,
          narration: yesterday.narration,
          originator: yesterday.originator,
          transaction_at: yesterday.transaction_at,
          outcome: yesterday.outcome,
          error_code: yesterday.error_code,
          company_id: yesterday.company_id,
          business_name: yesterday.business_name,
          transaction_id: yesterday.transaction_id,
        },
        {
          session_id: sent['yesterday']!.session_id,
          account_number: active.account_number,
          amount: 1234.56,
          amount_kobo: 123_456,
          narration: 'Yesterday',
          originator: ORIGINATOR,
          transaction_at: '2026-11-27T00:59:59.500Z',
          outcome: 'credited',
          error_code: null,
          company_id: live.companyId,
          business_name: businessName,
          transaction_id: transactions['yesterday'],
        },
      );
      assert.equal(byName['yesterday'].received_at.slice(0, 10), days.yesterday);
      assert.equal(byName['tomorrow'].received_at.slice(0, 10), days.tomorrow);
      assert.equal(byName['duplicate'].transaction_id, transactions['credited']);
      assert.equal(byName['duplicate'].outcome, 'duplicate');
      assert.deepEqual(
        [byName['unknown'].outcome, byName['unknown'].error_code, byName['unknown'].company_id],
        ['refused', 'NOT_FOUND', null],
      );
      assert.equal(byName['unknown'].business_name, null);
      assert.equal(byName['unknown'].transaction_id, null);
      assert.equal(byName['unknown'].narration, null);
      assert.equal(byName['unknown'].originator.bank_name, null);
      assert.deepEqual(
        [byName['inactive'].outcome, byName['inactive'].error_code, byName['inactive'].company_id],
        ['refused', 'ACCOUNT_INACTIVE', live.companyId],
      );
      assert.equal(byName['inactive'].business_name, businessName);
      assert.equal(byName['inactive'].transaction_id, null);
    });

    it('filters by outcome', async () => {
      assert.deepEqual(names(await listed(suite, 'outcome=credited')), ['tomorrow', 'credited', 'yesterday']);
      assert.deepEqual(names(await listed(suite, 'outcome=duplicate')), ['duplicate']);
      assert.deepEqual(names(await listed(suite, 'outcome=refused')), ['inactive', 'unknown']);
      assertError(
        await suite.t.api.get(`${ADMIN_CREDIT_NOTIFICATIONS}?outcome=lost`, ADMIN),
        422,
        'VALIDATION_FAILED',
        { fields: ['outcome'] },
      );
    });

    it('bounds received_at with from/to: a date alone is that whole UTC day, date-times are inclusive', async () => {
      const { yesterday, today, tomorrow } = days;
      assert.deepEqual(names(await listed(suite, `from=${yesterday}&to=${yesterday}`)), ['yesterday']);
      assert.deepEqual(names(await listed(suite, `from=${tomorrow}`)), ['tomorrow']);
      assert.deepEqual(names(await listed(suite, `to=${yesterday}`)), ['yesterday']);
      assert.deepEqual(names(await listed(suite, `from=${today}&to=${today}`)), [
        'inactive',
        'unknown',
        'duplicate',
        'credited',
      ]);
      assert.deepEqual(names(await listed(suite, `from=${today}&outcome=credited`)), [
        'tomorrow',
        'credited',
      ]);

      const all = await listed(suite);
      const at = (name: string) => all[names(all).indexOf(name)].received_at as string;
      const from = encodeURIComponent(at('duplicate'));
      const to = encodeURIComponent(at('inactive'));
      assert.deepEqual(names(await listed(suite, `from=${from}&to=${to}`)), [
        'inactive',
        'unknown',
        'duplicate',
      ]);
    });

    it('pages with a cursor; an altered cursor or from after to is 422', async () => {
      const { t } = suite;
      const whole = await listed(suite);
      for (const limit of [1, 2, 4]) {
        const paged = await listed(suite, '', limit);
        assert.deepEqual(
          paged.map((item) => item.id),
          whole.map((item) => item.id),
          `limit ${limit}`,
        );
      }
      const credits = await allPages(t, `${ADMIN_CREDIT_NOTIFICATIONS}?outcome=credited`, TEST_ADMIN_KEY, 1);
      assert.equal(credits.length, 3);

      const first = await t.api.get(`${ADMIN_CREDIT_NOTIFICATIONS}?limit=2`, ADMIN);
      assert.equal(first.status, 200, first.text);
      const cursor = first.body.data.next_cursor as string;
      assert.equal(typeof cursor, 'string');
      const middle = Math.floor(cursor.length / 2);
      const altered = `${cursor.slice(0, middle)}${cursor[middle] === 'A' ? 'B' : 'A'}${cursor.slice(middle + 1)}`;
      for (const bad of [altered, 'nope', `${cursor}x`]) {
        assertError(
          await t.api.get(`${ADMIN_CREDIT_NOTIFICATIONS}?limit=2&cursor=${encodeURIComponent(bad)}`, ADMIN),
          422,
          'VALIDATION_FAILED',
          { fields: ['cursor'], what: bad },
        );
      }
      assertError(
        await t.api.get(`${ADMIN_CREDIT_NOTIFICATIONS}?from=${days.tomorrow}&to=${days.yesterday}`, ADMIN),
        422,
        'VALIDATION_FAILED',
        { fields: ['to'] },
      );
      assertError(
        await t.api.get(`${ADMIN_CREDIT_NOTIFICATIONS}?from=2026-02-30`, ADMIN),
        422,
        'VALIDATION_FAILED',
        { fields: ['from'] },
      );
    });

    it('answers 401 UNAUTHENTICATED without the admin key, and to a partner’s live key or session', async () => {
      assertError(await suite.t.api.get(ADMIN_CREDIT_NOTIFICATIONS), 401, 'UNAUTHENTICATED');
      for (const token of [live.liveKey, live.liveToken]) {
        assertError(await suite.t.api.get(ADMIN_CREDIT_NOTIFICATIONS, { token }), 401, 'UNAUTHENTICATED');
      }
    });
  });

  describe(`money in: without BANK_CONNECTOR_SECRET [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { BANK_CONNECTOR_SECRET: '', BANK_CONNECTOR_URL: '' } });

    it('answers 404 NOT_FOUND on /bank/credit-notifications and /bank/transfer-updates, even signed', async () => {
      const { t } = suite;
      const nowMs = t.clock.now();
      const body = notification(unknownNumber());
      assertError(await notify(t.api, body, { nowMs }), 404, 'NOT_FOUND');
      assertError(await t.api.post(BANK_CREDIT_NOTIFICATIONS, body), 404, 'NOT_FOUND');
      assertError(
        await postSigned(t.api, BANK_TRANSFER_UPDATES, { reference: 'TRF_1', status: 'failed' }, { nowMs }),
        404,
        'NOT_FOUND',
      );
      assert.deepEqual(await notificationsOfSession(suite, body.session_id), []);
    });
  });

  describe(`money in: development without BANK_CONNECTOR_URL [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name, { env: { NODE_ENV: 'development', BANK_CONNECTOR_URL: '' } });

    it('warns at start-up that live accounts use the built-in simulator', () => {
      const warning = suite.t.logs
        .map((line) => JSON.parse(line) as { level: string; msg: string })
        .find((line) => line.msg.includes('BANK_CONNECTOR_URL is not set'));
      assert.ok(warning, 'a start-up line names BANK_CONNECTOR_URL');
      assert.equal(warning.level, 'warn');
      assert.match(warning.msg, /built-in bank simulator/);
    });
  });

  describe(`money in: BANK_CONNECTOR_ALLOWED_IPS without this address [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name, { env: { BANK_CONNECTOR_ALLOWED_IPS: '10.0.0.0/8' } });

    it('answers 403 FORBIDDEN to a signed notification from 127.0.0.1, storing nothing', async () => {
      const body = notification(unknownNumber());
      assertError(await send(suite, body), 403, 'FORBIDDEN');
      assert.deepEqual(await notificationsOfSession(suite, body.session_id), []);
    });
  });

  describe(`money in: BANK_CONNECTOR_ALLOWED_IPS with this address [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const suite = useApp(dialect.name, { env: { BANK_CONNECTOR_ALLOWED_IPS: '127.0.0.1, 10.0.0.0/8' } });

    it('credits a signed notification from 127.0.0.1', async () => {
      const live = await newPartner(suite, 'live');
      const account = await createAccount(suite.t, live.liveKey);
      await credited(suite, notification(account.account_number, { amount_kobo: 900 }));
      assert.equal(await balanceOf(suite, account.account_number, live.liveKey), 900);
      assertError(
        await suite.t.api.post(BANK_CREDIT_NOTIFICATIONS, notification(account.account_number)),
        401,
        'SIGNATURE_INVALID',
      );
    });
  });

  describe(`money in: connector configuration [${dialect.name}]`, () => {
    const databaseUrl =
      dialect.name === 'postgres' ? TEST_DATABASE_URL : 'sqlite:/tmp/baas-money-in-config.sqlite';
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      SMTP_URL: 'smtp://mail.example.com:587',
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PUBLIC_URL: 'https://partners.bank.example',
    };
    const connector = {
      BANK_CONNECTOR_URL: 'https://connector.bank.example',
      BANK_CONNECTOR_SECRET: TEST_CONNECTOR_SECRET,
    };

    function assertRefused(env: Record<string, string>, ...mentions: string[]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
          for (const mention of mentions) {
            assert.ok(
              error.message.includes(mention),
              `message does not mention ${mention}: ${error.message}`,
            );
          }
          return true;
        },
      );
    }

    it('loads production with BANK_CONNECTOR_URL and BANK_CONNECTOR_SECRET', () => {
      const config = loadConfig({ ...production, ...connector });
      assert.equal(config.BANK_CONNECTOR_URL, connector.BANK_CONNECTOR_URL);
      assert.equal(config.BANK_CONNECTOR_SECRET, TEST_CONNECTOR_SECRET);
    });

    it('refuses production without BANK_CONNECTOR_URL or BANK_CONNECTOR_SECRET, mentioning both', () => {
      assertRefused(production, 'BANK_CONNECTOR_URL', 'BANK_CONNECTOR_SECRET');
      assertRefused(
        { ...production, BANK_CONNECTOR_URL: connector.BANK_CONNECTOR_URL },
        'BANK_CONNECTOR_URL',
        'BANK_CONNECTOR_SECRET',
      );
      assertRefused(
        { ...production, BANK_CONNECTOR_SECRET: TEST_CONNECTOR_SECRET },
        'BANK_CONNECTOR_URL',
        'BANK_CONNECTOR_SECRET',
      );
    });

    it('refuses a secret of 16 bytes without showing it, and a malformed allow-list naming the entry', () => {
      const short = `whsec_${randomBytes(16).toString('base64')}`;
      assertRefused({ DATABASE_URL: databaseUrl, BANK_CONNECTOR_SECRET: short }, 'BANK_CONNECTOR_SECRET');
      assert.throws(
        () => loadConfig({ DATABASE_URL: databaseUrl, BANK_CONNECTOR_SECRET: short }),
        (error: unknown) => error instanceof ConfigError && !error.message.includes(short.slice(6)),
      );
      for (const list of ['300.1.1.1', '10.0.0.0/33', '127.0.0.1, nope']) {
        assertRefused(
          { DATABASE_URL: databaseUrl, BANK_CONNECTOR_ALLOWED_IPS: list },
          'BANK_CONNECTOR_ALLOWED_IPS',
        );
      }
      assertRefused({ DATABASE_URL: databaseUrl, BANK_CONNECTOR_ALLOWED_IPS: '300.1.1.1' }, '300.1.1.1');
      const config = loadConfig({
        DATABASE_URL: databaseUrl,
        BANK_CONNECTOR_ALLOWED_IPS: '127.0.0.1, 10.0.0.0/8, ::1',
      });
      assert.equal(config.BANK_CONNECTOR_ALLOWED_IPS, '127.0.0.1, 10.0.0.0/8, ::1');
    });
  });
}
