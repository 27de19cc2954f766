import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { nuban } from '../../src/modules/virtual-accounts/nuban.js';
import { isUniqueViolation } from '../../src/platform/db/errors.js';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_MILLIS } from '../support/assertions.js';
import { customerBody, uniqueSuffix } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  accountUrl,
  CREATE_ACCOUNT,
  creditUrl,
  EVENTS,
  lifecycleUrl,
  transactionsUrl,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { auditActions, outboxEvents } from '../support/records.js';
import { ownerIdOf } from '../support/users.js';
import { FAST_WEBHOOKS, setEndpoint, startReceiver, verifiedPayload } from '../support/webhooks.js';

// biome-ignore lint/suspicious/noExplicitAny: the API's account object.
type Account = Record<string, any>;
type Action = 'deactivate' | 'reactivate' | 'close';

const STATUS_CHANGED = 'virtual_account.status_changed';
const REPLAYED = 'idempotent-replayed';

/** Runs `work` over `items`, at most `size` at a time. */
async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return results;
}

/**
 * A credit and a status change fired at the same time; every other pair sends the change first, so
 * both orders of arrival occur.
 */
function pair(
  index: number,
  credit: () => Promise<ApiResponse>,
  statusChange: () => Promise<ApiResponse>,
): Promise<[ApiResponse, ApiResponse]> {
  if (index % 2 === 0) return Promise.all([credit(), statusChange()]);
  const changing = statusChange();
  return Promise.all([credit(), changing]);
}

for (const dialect of DIALECTS) {
  describe(`virtual-account lifecycle [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite: AppContext = useApp(dialect.name, { env: FAST_WEBHOOKS });
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

    function change(
      accountNumber: string,
      action: Action,
      token: string,
      body: unknown = action === 'reactivate' ? undefined : { reason: `${action} ${uniqueSuffix()}` },
      headers: Record<string, string> = {},
    ): Promise<ApiResponse> {
      return suite.t.api.post(lifecycleUrl(accountNumber, action), body, { token, headers });
    }

    /** A change that must succeed: 200 with the account in the new status. */
    async function changed(accountNumber: string, action: Action, token: string, reason?: string) {
      const response = await change(
        accountNumber,
        action,
        token,
        action === 'reactivate' ? undefined : { reason: reason ?? `${action} ${uniqueSuffix()}` },
      );
      assert.equal(response.status, 200, `${action}: ${response.text}`);
      assert.equal(response.body.status, 'success');
      return response;
    }

    const credit = (accountNumber: string, amount: number | string, token = a.sandboxKey) =>
      suite.t.api.post(creditUrl(accountNumber), { amount }, { token });

    const read = async (accountNumber: string, token = a.sandboxKey): Promise<Account> => {
      const response = await suite.t.api.get(accountUrl(accountNumber), { token });
      assert.equal(response.status, 200, response.text);
      return response.body.data;
    };

    const ledgerOf = (accountId: string) =>
      suite.t.db
        .selectFrom('account_transactions')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();

    const rowOf = (accountId: string) =>
      suite.t.db
        .selectFrom('virtual_accounts')
        .selectAll()
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow();

    /** The partner's status_changed audit events of one account, oldest first. */
    const statusAudits = async (partnerId: number, accountId: string) =>
      (await auditActions(suite.t, partnerId, STATUS_CHANGED)).filter((row) => row.target_id === accountId);

    /** The partner's status_changed outbox events of one account, oldest first. */
    const statusEvents = async (partnerId: number, accountId: string) =>
      (await outboxEvents(suite.t, partnerId)).filter(
        (row) => row.type === STATUS_CHANGED && JSON.parse(row.payload).id === accountId,
      );

    it('deactivates an active account: 200 inactive with status_reason and status_changed_at, stored on the row', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      assert.equal(account.status_reason, null);
      assert.equal(account.status_changed_at, null);
      const before = Date.now();
      const response = await changed(
        account.account_number,
        'deactivate',
        a.sandboxKey,
        '  The customer asked to pause the account.  ',
      );
      const after = Date.now();
      const data = response.body.data;
      assert.equal(data.status, 'inactive');
      assert.equal(data.status_reason, 'The customer asked to pause the account.', 'reason trimmed');
      assert.match(data.status_changed_at, ISO_MILLIS);
      const changedAt = Date.parse(data.status_changed_at);
      assert.ok(changedAt >= before - 5 && changedAt <= after + 5, `${data.status_changed_at} is now`);
      // Everything else is the account as it was.
      const { status, status_reason, status_changed_at, ...rest } = data;
      const { status: s0, status_reason: r0, status_changed_at: c0, ...rest0 } = account;
      assert.deepEqual(rest, rest0);
      assert.deepEqual(await read(account.account_number), data);

      const row = await rowOf(account.id);
      assert.equal(row.status, 'inactive');
      assert.equal(row.status_reason, 'The customer asked to pause the account.');
      assert.equal(Number(row.status_changed_at), changedAt);
    });

    it('refuses credits to an inactive account with 409 ACCOUNT_INACTIVE, leaving balance, ledger and events unchanged', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const first = await credit(account.account_number, '12.34');
      assert.equal(first.status, 201, first.text);
      await changed(account.account_number, 'deactivate', a.sandboxKey);
      const ledgerBefore = await ledgerOf(account.id);
      const creditedBefore = (await auditActions(t, a.companyId, 'virtual_account.credited')).length;
      for (const [amount, token] of [
        ['1.00', a.sandboxKey],
        [5, a.token],
      ] as const) {
        assertError(await credit(account.account_number, amount, token), 409, 'ACCOUNT_INACTIVE', {
          what: `credit with ${token === a.token ? 'session' : 'API key'}`,
        });
      }
      const after = await read(account.account_number);
      assert.equal(after.status, 'inactive');
      assert.equal(after.balance_kobo, 1234);
      assert.equal(after.balance, 12.34);
      assert.deepEqual(await ledgerOf(account.id), ledgerBefore);
      const listed = await t.api.get(transactionsUrl(account.account_number), { token: a.sandboxKey });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.items.map((item: Account) => item['reference']),
        [first.body.data.transaction.reference],
      );
      assert.equal((await auditActions(t, a.companyId, 'virtual_account.credited')).length, creditedBefore);
    });

    it('reactivates an inactive account: 200 active, status_reason cleared, and credits land again', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const deactivated = (await changed(account.account_number, 'deactivate', a.sandboxKey)).body.data;
      assertError(await credit(account.account_number, 3), 409, 'ACCOUNT_INACTIVE');
      const response = await changed(account.account_number, 'reactivate', a.sandboxKey);
      const data = response.body.data;
      assert.equal(data.status, 'active');
      assert.equal(data.status_reason, null);
      assert.match(data.status_changed_at, ISO_MILLIS);
      assert.ok(Date.parse(data.status_changed_at) >= Date.parse(deactivated.status_changed_at));
      assert.deepEqual(await read(account.account_number), data);

      const credited = await credit(account.account_number, '7.25');
      assert.equal(credited.status, 201, credited.text);
      assert.equal(credited.body.data.account.status, 'active');
      assert.equal(credited.body.data.account.balance_kobo, 725);
      assert.equal((await read(account.account_number)).balance_kobo, 725);
      assert.equal((await ledgerOf(account.id)).length, 1);
    });

    it('answers a reactivation of an active account with the account as it is: 200, nothing changed, nothing recorded', async () => {
      for (const history of ['never changed', 'reactivated before'] as const) {
        const account = await createAccount(suite.t, a.sandboxKey);
        if (history === 'reactivated before') {
          await changed(account.account_number, 'deactivate', a.sandboxKey);
          await changed(account.account_number, 'reactivate', a.sandboxKey);
        }
        const current = await read(account.account_number);
        const rowBefore = await rowOf(account.id);
        const audits = (await statusAudits(a.companyId, account.id)).length;
        const events = (await statusEvents(a.companyId, account.id)).length;
        for (const token of [a.sandboxKey, a.token]) {
          const response = await changed(account.account_number, 'reactivate', token);
          assert.deepEqual(response.body.data, current, history);
        }
        assert.deepEqual(await rowOf(account.id), rowBefore, history);
        assert.equal((await statusAudits(a.companyId, account.id)).length, audits, history);
        assert.equal((await statusEvents(a.companyId, account.id)).length, events, history);
      }
    });

    it('answers a deactivation of an inactive account with 409 ACCOUNT_INACTIVE and keeps the first reason and time', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const first = (await changed(account.account_number, 'deactivate', a.sandboxKey, 'first reason')).body
        .data;
      const rowBefore = await rowOf(account.id);
      assertError(
        await change(account.account_number, 'deactivate', a.sandboxKey, { reason: 'second reason' }),
        409,
        'ACCOUNT_INACTIVE',
      );
      assert.deepEqual(await rowOf(account.id), rowBefore);
      assert.deepEqual(await read(account.account_number), first);
      assert.equal((await statusAudits(a.companyId, account.id)).length, 1);
      assert.equal((await statusEvents(a.companyId, account.id)).length, 1);
    });

    it('closes an active and an inactive account: 200 closed with the reason, final', async () => {
      const active = await createAccount(suite.t, a.sandboxKey);
      const inactive = await createAccount(suite.t, a.sandboxKey);
      await changed(inactive.account_number, 'deactivate', a.sandboxKey, 'paused');
      for (const [account, from] of [
        [active, 'active'],
        [inactive, 'inactive'],
      ] as const) {
        const response = await changed(account.account_number, 'close', a.sandboxKey, `closing from ${from}`);
        const data = response.body.data;
        assert.equal(data.status, 'closed', from);
        assert.equal(data.status_reason, `closing from ${from}`);
        assert.match(data.status_changed_at, ISO_MILLIS);
        assert.equal(data.account_number, account.account_number);
        const row = await rowOf(account.id);
        assert.equal(row.status, 'closed');
        assert.equal(row.status_reason, `closing from ${from}`);
        const audits = await statusAudits(a.companyId, account.id);
        assert.deepEqual(JSON.parse(audits.at(-1)!.metadata!), {
          account_number: account.account_number,
          from,
          to: 'closed',
          reason: `closing from ${from}`,
        });
      }
    });

    it('refuses every change and credit of a closed account with 409 ACCOUNT_CLOSED; GET still shows it, closed', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const funded = await credit(account.account_number, '40.50');
      assert.equal(funded.status, 201, funded.text);
      const closed = (await changed(account.account_number, 'close', a.sandboxKey, 'customer left')).body
        .data;
      const rowBefore = await rowOf(account.id);
      for (const token of [a.sandboxKey, a.token]) {
        for (const action of ['deactivate', 'reactivate', 'close'] as const) {
          assertError(await change(account.account_number, action, token), 409, 'ACCOUNT_CLOSED', {
            what: action,
          });
        }
        assertError(await credit(account.account_number, 1, token), 409, 'ACCOUNT_CLOSED', {
          what: 'credit',
        });
      }
      assert.deepEqual(await rowOf(account.id), rowBefore);
      assert.equal((await ledgerOf(account.id)).length, 1);
      assert.equal((await statusAudits(a.companyId, account.id)).length, 1);
      assert.equal((await statusEvents(a.companyId, account.id)).length, 1);

      const shown = await read(account.account_number);
      assert.deepEqual(shown, closed);
      assert.equal(shown.status, 'closed');
      assert.equal(shown.status_reason, 'customer left');
      assert.equal(shown.balance_kobo, 4050, 'a closed account keeps its balance');
      const history = await t.api.get(transactionsUrl(account.account_number), { token: a.sandboxKey });
      assert.equal(history.status, 200, history.text);
      assert.equal(history.body.data.items.length, 1);
    });

    it('requires a reason of 1–500 characters for deactivate and close: 422 naming reason, nothing changed', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      const rowBefore = await rowOf(account.id);
      for (const action of ['deactivate', 'close'] as const) {
        for (const [label, body] of [
          ['no body', undefined],
          ['missing', {}],
          ['empty', { reason: '' }],
          ['blank', { reason: '  \t ' }],
          ['501 characters', { reason: 'r'.repeat(501) }],
          ['a number', { reason: 42 }],
          ['null', { reason: null }],
        ] as const) {
          const response =
            label === 'no body'
              ? await suite.t.api.post(lifecycleUrl(account.account_number, action), undefined, {
                  token: a.sandboxKey,
                })
              : await change(account.account_number, action, a.sandboxKey, body);
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['reason'], what: `${action} ${label}` });
        }
      }
      assert.deepEqual(await rowOf(account.id), rowBefore);
      assert.equal((await statusAudits(a.companyId, account.id)).length, 0);

      const longest = 'r'.repeat(500);
      const response = await changed(account.account_number, 'deactivate', a.sandboxKey, longest);
      assert.equal(response.body.data.status_reason, longest);
    });

    it("answers 404 NOT_FOUND for an unknown number, another partner's account and another environment's account", async () => {
      const theirs = await createAccount(suite.t, b.sandboxKey);
      const liveAccount = await createAccount(suite.t, live.liveKey);
      const sandboxOfLive = await createAccount(suite.t, live.sandboxKey);
      let unknown: string;
      do unknown = nuban('999999', String(randomInt(0, 1e9)).padStart(9, '0'));
      while (unknown === theirs.account_number || unknown === sandboxOfLive.account_number);
      const cases: Array<[string, string, string]> = [
        ['unknown number', unknown, a.sandboxKey],
        ['non-numeric number', 'abcdefghij', a.sandboxKey],
        ["another partner's account (API key)", theirs.account_number, a.sandboxKey],
        ["another partner's account (session)", theirs.account_number, a.token],
        ["a live account with the partner's sandbox key", liveAccount.account_number, live.sandboxKey],
        ["a live account with the partner's sandbox session", liveAccount.account_number, live.token],
        ["a sandbox account with the partner's live key", sandboxOfLive.account_number, live.liveKey],
        ["a sandbox account with the partner's live session", sandboxOfLive.account_number, live.liveToken],
      ];
      for (const [label, number, token] of cases) {
        for (const action of ['deactivate', 'reactivate', 'close'] as const) {
          assertError(await change(number, action, token), 404, 'NOT_FOUND', { what: `${action}: ${label}` });
        }
      }
      for (const [account, token] of [
        [theirs, b.sandboxKey],
        [liveAccount, live.liveKey],
        [sandboxOfLive, live.sandboxKey],
      ] as const) {
        assert.equal((await read(account.account_number, token)).status, 'active');
        assert.equal((await rowOf(account.id)).status_changed_at, null);
      }
    });

    it('issues a new account to the e-mail of a closed account, never to that of an inactive one', async () => {
      const { t } = suite;
      const email = `closing-${uniqueSuffix()}@example.com`;
      const first = await createAccount(suite.t, a.sandboxKey, { email });
      const duplicate = await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: a.sandboxKey });
      assertError(duplicate, 409, 'VIRTUAL_ACCOUNT_EXISTS', { data: true });
      assert.equal(duplicate.body.data.account_number, first.account_number);

      const inactive = (await changed(first.account_number, 'deactivate', a.sandboxKey)).body.data;
      const blocked = await t.api.post(CREATE_ACCOUNT, customerBody({ email: email.toUpperCase() }), {
        token: a.sandboxKey,
      });
      assertError(blocked, 409, 'VIRTUAL_ACCOUNT_EXISTS', { data: true, what: 'an inactive account blocks' });
      assert.deepEqual(blocked.body.data, inactive);

      await changed(first.account_number, 'close', a.sandboxKey);
      const second = await createAccount(suite.t, a.sandboxKey, { email });
      assert.equal(second.status, 'active');
      assert.equal(second.customer.email, email);
      assert.notEqual(second.account_number, first.account_number);
      assert.notEqual(second.id, first.id);

      const third = await t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: a.sandboxKey });
      assertError(third, 409, 'VIRTUAL_ACCOUNT_EXISTS', { data: true, what: 'the new account blocks' });
      assert.equal(third.body.data.account_number, second.account_number);

      // Both remain, each under its own number.
      const listed = await t.api.get(`${VIRTUAL_ACCOUNTS}?email=${encodeURIComponent(email)}`, {
        token: a.sandboxKey,
      });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.items.map((item: Account) => [item['account_number'], item['status']]),
        [
          [second.account_number, 'active'],
          [first.account_number, 'closed'],
        ],
      );
      assert.equal((await read(first.account_number)).status, 'closed');
    });

    it('never reissues a closed number: its row stays, and the institution-wide unique constraint still refuses it', async () => {
      const account = await createAccount(suite.t, a.sandboxKey);
      await changed(account.account_number, 'close', a.sandboxKey);
      const row = await rowOf(account.id);
      assert.equal(row.account_number, account.account_number);
      assert.equal(row.status, 'closed');
      const holders = await suite.t.db
        .selectFrom('virtual_accounts')
        .select(['id'])
        .where('bank_code', '=', row.bank_code)
        .where('account_number', '=', row.account_number)
        .execute();
      assert.deepEqual(
        holders.map((holder) => holder.id),
        [account.id],
      );

      // The same number for another partner of the institution, another e-mail: refused by the
      // (bank_code, account_number) constraint that allocation retries on.
      const stranger = {
        ...row,
        id: randomUUID(),
        partner_id: b.companyId,
        customer_email: `stranger-${uniqueSuffix()}@example.com`,
        status: 'active' as const,
        status_reason: null,
        status_changed_at: null,
      };
      const refused = await suite.t.db
        .insertInto('virtual_accounts')
        .values(stranger)
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(refused, 'inserting a closed number again must fail');
      assert.ok(isUniqueViolation(refused), String(refused));
      if (dialect.name === 'postgres') {
        assert.equal((refused as { constraint?: string }).constraint, 'virtual_accounts_number_unique');
      } else {
        assert.match(String(refused), /virtual_accounts\.bank_code, virtual_accounts\.account_number/);
      }
      // The same row with a number nobody holds is accepted: only the number was in the way.
      let fresh: string;
      do fresh = nuban(row.bank_code, String(randomInt(0, 1e9)).padStart(9, '0'));
      while (fresh === row.account_number);
      await suite.t.db
        .insertInto('virtual_accounts')
        .values({ ...stranger, account_number: fresh })
        .execute();
      await suite.t.db.deleteFrom('virtual_accounts').where('id', '=', stranger.id).execute();
    });

    it('audits every change with the credential used and queues virtual_account.status_changed in its environment with the account as data', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      // A session acts as its dashboard user (actor_type user), an API key as the partner's key.
      const owner = await ownerIdOf(t, a.companyId);
      const steps: Array<[Action, string, string]> = [
        ['deactivate', a.sandboxKey, `api_key:${a.sandboxKeyId}`],
        ['reactivate', a.token, owner],
        ['deactivate', a.token, owner],
        ['close', a.sandboxKey, `api_key:${a.sandboxKeyId}`],
      ];
      const expectations: Array<{ from: string; response: ApiResponse; actor: string; reason?: string }> = [];
      let from = 'active';
      for (const [action, token, actor] of steps) {
        const reason = action === 'reactivate' ? undefined : `${action} because ${uniqueSuffix()}`;
        const response = await changed(account.account_number, action, token, reason);
        expectations.push({ from, response, actor, ...(reason ? { reason } : {}) });
        from = response.body.data.status;
      }
      const audits = await statusAudits(a.companyId, account.id);
      const events = await statusEvents(a.companyId, account.id);
      assert.equal(audits.length, steps.length);
      assert.equal(events.length, steps.length);
      for (const [index, expected] of expectations.entries()) {
        const data = expected.response.body.data;
        const audit = audits[index]!;
        assert.equal(audit.actor_type, expected.actor === owner ? 'user' : 'partner');
        assert.equal(audit.actor_id, expected.actor);
        assert.equal(audit.partner_id, a.companyId);
        assert.equal(audit.target_type, 'virtual_account');
        assert.equal(audit.target_id, account.id);
        assert.equal(audit.request_id, expected.response.headers.get('x-request-id'));
        assert.deepEqual(JSON.parse(audit.metadata!), {
          account_number: account.account_number,
          from: expected.from,
          to: data.status,
          ...(expected.reason ? { reason: expected.reason } : {}),
        });
        const event = events[index]!;
        assert.equal(event.environment, 'sandbox');
        assert.deepEqual(JSON.parse(event.payload), data);
        assert.equal(data.status_reason, expected.reason ?? null);
      }

      // The events API shows the same data, in the sandbox only.
      const listed = await t.api.get(`${EVENTS}?type=${STATUS_CHANGED}&limit=100`, { token: a.sandboxKey });
      assert.equal(listed.status, 200, listed.text);
      const mine = listed.body.data.items.filter((item: Account) => item['data'].id === account.id);
      assert.deepEqual(
        mine.map((item: Account) => item['id']).sort(),
        events.map((event) => event.id).sort(),
      );
      for (const item of mine) {
        assert.equal(item.type, STATUS_CHANGED);
        assert.equal(item.environment, 'sandbox');
        assert.deepEqual(item.data, JSON.parse(events.find((event) => event.id === item.id)!.payload));
      }
    });

    it('queues a live account’s status_changed event in live only, audited with the live key', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, live.liveKey);
      const response = await changed(account.account_number, 'deactivate', live.liveKey, 'live pause');
      const events = await statusEvents(live.companyId, account.id);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.environment, 'live');
      assert.deepEqual(JSON.parse(events[0]!.payload), response.body.data);
      assert.equal(response.body.data.environment, 'live');
      const [audit] = await statusAudits(live.companyId, account.id);
      assert.equal(audit?.actor_id, `api_key:${live.liveKeyId}`);

      const inLive = await t.api.get(`${EVENTS}?type=${STATUS_CHANGED}`, { token: live.liveKey });
      assert.deepEqual(
        inLive.body.data.items.map((item: Account) => item['id']),
        [events[0]!.id],
      );
      const inSandbox = await t.api.get(`${EVENTS}?type=${STATUS_CHANGED}`, { token: live.sandboxKey });
      assert.equal(inSandbox.status, 200, inSandbox.text);
      assert.deepEqual(inSandbox.body.data.items, []);
    });

    it('delivers each virtual_account.status_changed to the webhook receiver, signed, with the account as data', async (test) => {
      const receiver = await startReceiver(test);
      const partner = await newPartner(suite, 'sandbox');
      await setEndpoint(suite.t.api, partner.token, receiver);
      const account = await createAccount(suite.t, partner.sandboxKey);
      const answers = [
        await changed(account.account_number, 'deactivate', partner.sandboxKey, 'hold'),
        await changed(account.account_number, 'reactivate', partner.token),
        await changed(account.account_number, 'close', partner.sandboxKey, 'done'),
      ];
      const events = await statusEvents(partner.companyId, account.id);
      assert.equal(events.length, 3);
      const ids = new Set(events.map((event) => event.id));
      await receiver.waitFor(
        (deliveries) => [...ids].every((id) => deliveries.some((delivery) => delivery.id === id)),
        10_000,
      );
      for (const [index, event] of events.entries()) {
        const delivery = receiver.received.find((entry) => entry.id === event.id)!;
        const payload = verifiedPayload(delivery);
        assert.equal(payload.type, STATUS_CHANGED);
        assert.deepEqual(payload.data, answers[index]!.body.data);
        assert.equal(Date.parse(payload.timestamp), Number(event.created_at));
      }
      assert.deepEqual(
        events.map((event) => JSON.parse(event.payload).status),
        ['inactive', 'active', 'closed'],
      );
    });

    it('filters the account list by status=active, inactive and closed', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const token = partner.sandboxKey;
      const [active, inactive, closed, closedFromInactive] = await Promise.all(
        [0, 1, 2, 3].map(() => createAccount(suite.t, token)),
      );
      await changed(inactive!.account_number, 'deactivate', token);
      await changed(closed!.account_number, 'close', token);
      await changed(closedFromInactive!.account_number, 'deactivate', token);
      await changed(closedFromInactive!.account_number, 'close', token);
      const numbersWith = async (query: string) => {
        const response = await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=100${query}`, { token });
        assert.equal(response.status, 200, response.text);
        return response.body.data.items
          .map((item: Account) => `${item['account_number']}:${item['status']}`)
          .sort();
      };
      assert.deepEqual(await numbersWith('&status=active'), [`${active!.account_number}:active`]);
      assert.deepEqual(await numbersWith('&status=inactive'), [`${inactive!.account_number}:inactive`]);
      assert.deepEqual(
        await numbersWith('&status=closed'),
        [`${closed!.account_number}:closed`, `${closedFromInactive!.account_number}:closed`].sort(),
      );
      assert.equal((await numbersWith('')).length, 4);
      assertError(await t.api.get(`${VIRTUAL_ACCOUNTS}?status=frozen`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['status'],
      });
    });

    it('replays the first answer to deactivate, reactivate and close under the same Idempotency-Key', async () => {
      const { t } = suite;
      const account = await createAccount(suite.t, a.sandboxKey);
      const deactivateKey = `deactivate-${uniqueSuffix()}`;
      const body = { reason: 'idempotent pause' };
      const first = await change(account.account_number, 'deactivate', a.sandboxKey, body, {
        'idempotency-key': deactivateKey,
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get(REPLAYED), null);
      const replay = await change(account.account_number, 'deactivate', a.sandboxKey, body, {
        'idempotency-key': deactivateKey,
      });
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.headers.get(REPLAYED), 'true');
      assert.deepEqual(replay.body, first.body);
      assert.equal((await statusAudits(a.companyId, account.id)).length, 1);
      assert.equal((await statusEvents(a.companyId, account.id)).length, 1);

      // Another body under the same key is refused; without the key the same body is a real (409) request.
      assertError(
        await change(
          account.account_number,
          'deactivate',
          a.sandboxKey,
          { reason: 'other' },
          {
            'idempotency-key': deactivateKey,
          },
        ),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assertError(
        await change(account.account_number, 'deactivate', a.sandboxKey, body),
        409,
        'ACCOUNT_INACTIVE',
      );

      const reactivateKey = `reactivate-${uniqueSuffix()}`;
      const reactivated = await change(account.account_number, 'reactivate', a.sandboxKey, undefined, {
        'idempotency-key': reactivateKey,
      });
      assert.equal(reactivated.status, 200, reactivated.text);
      assert.equal(reactivated.body.data.status, 'active');
      const reactivatedAgain = await change(account.account_number, 'reactivate', a.sandboxKey, undefined, {
        'idempotency-key': reactivateKey,
      });
      assert.equal(reactivatedAgain.headers.get(REPLAYED), 'true');
      assert.deepEqual(reactivatedAgain.body, reactivated.body);

      // The account is active now: a replay of the deactivation answers as it first did and changes nothing.
      const late = await change(account.account_number, 'deactivate', a.sandboxKey, body, {
        'idempotency-key': deactivateKey,
      });
      assert.equal(late.headers.get(REPLAYED), 'true');
      assert.deepEqual(late.body, first.body);
      assert.equal((await read(account.account_number)).status, 'active');
      assert.equal((await statusAudits(a.companyId, account.id)).length, 2);

      const closeKey = `close-${uniqueSuffix()}`;
      const closed = await change(
        account.account_number,
        'close',
        a.token,
        { reason: 'bye' },
        {
          'idempotency-key': closeKey,
        },
      );
      assert.equal(closed.status, 200, closed.text);
      assert.equal(closed.body.data.status, 'closed');
      const closedAgain = await change(
        account.account_number,
        'close',
        a.token,
        { reason: 'bye' },
        {
          'idempotency-key': closeKey,
        },
      );
      assert.equal(closedAgain.status, 200, closedAgain.text);
      assert.equal(closedAgain.headers.get(REPLAYED), 'true');
      assert.deepEqual(closedAgain.body, closed.body);
      assertError(
        await change(account.account_number, 'close', a.token, { reason: 'bye' }),
        409,
        'ACCOUNT_CLOSED',
      );
      assert.equal((await statusAudits(a.companyId, account.id)).length, 3);
      assert.equal((await statusEvents(a.companyId, account.id)).length, 3);
      assert.equal(
        (await t.api.get(accountUrl(account.account_number), { token: a.token })).body.data.status,
        'closed',
      );
    });

    it('never records a credit after a racing deactivation: 50 accounts, each credited and deactivated at once', async (test) => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const token = partner.sandboxKey;
      const accounts = await inBatches(
        Array.from({ length: 50 }, (_, index) => index),
        10,
        () => createAccount(suite.t, token),
      );
      const amountKobo = (index: number) => 101 * (index + 1);
      const results = await Promise.all(
        accounts.map((account, index) =>
          pair(
            index,
            () =>
              t.api.post(creditUrl(account.account_number), { amount: amountKobo(index) / 100 }, { token }),
            () => change(account.account_number, 'deactivate', token, { reason: `race ${index}` }),
          ),
        ),
      );

      let landed = 0;
      for (const [index, [credited, deactivated]] of results.entries()) {
        const account = accounts[index]!;
        assert.equal(deactivated.status, 200, `deactivate ${index}: ${deactivated.text}`);
        assert.equal(deactivated.body.data.status, 'inactive');
        const deactivatedAt = Date.parse(deactivated.body.data.status_changed_at);
        if (credited.status === 201) {
          landed++;
          const { transaction, account: after } = credited.body.data;
          assert.equal(after.status, 'active', `credit ${index} saw the account active`);
          assert.equal(transaction.amount_kobo, amountKobo(index));
          assert.ok(
            Date.parse(transaction.created_at) < deactivatedAt,
            `credit ${index} at ${transaction.created_at} is dated before the deactivation at ${deactivated.body.data.status_changed_at}`,
          );
          assert.equal(
            deactivated.body.data.balance_kobo,
            amountKobo(index),
            'the deactivation saw the credit',
          );
        } else {
          assertError(credited, 409, 'ACCOUNT_INACTIVE', { what: `credit ${index}` });
          assert.equal(deactivated.body.data.balance_kobo, 0);
        }
        const shown = await read(account.account_number, token);
        assert.equal(shown.status, 'inactive');
        assert.equal(shown.balance_kobo, credited.status === 201 ? amountKobo(index) : 0);
      }
      test.diagnostic(`${landed} credits landed before their deactivation, ${50 - landed} were refused`);

      // From the database: no ledger row at or after any account's deactivation, and the balances
      // are the sums of the credits that were answered 201.
      const ids = accounts.map((account) => account.id);
      const rows = await t.db.selectFrom('virtual_accounts').selectAll().where('id', 'in', ids).execute();
      const ledger = await t.db
        .selectFrom('account_transactions')
        .selectAll()
        .where('account_id', 'in', ids)
        .execute();
      assert.equal(rows.length, 50);
      for (const row of rows) {
        assert.equal(row.status, 'inactive');
        assert.notEqual(row.status_changed_at, null);
        const late = ledger.filter(
          (entry) => entry.account_id === row.id && Number(entry.created_at) >= Number(row.status_changed_at),
        );
        assert.deepEqual(
          late,
          [],
          `account ${row.account_number} has credits dated at or after its deactivation`,
        );
      }
      const expected = results.reduce(
        (sum, [credited], index) => sum + (credited.status === 201 ? amountKobo(index) : 0),
        0,
      );
      assert.equal(ledger.length, landed);
      assert.equal(
        ledger.reduce((sum, entry) => sum + Number(entry.amount_kobo), 0),
        expected,
      );
    });

    it('never dates a credit before a racing reactivation: 50 inactive accounts, each credited and reactivated at once', async (test) => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const token = partner.sandboxKey;
      const accounts = await inBatches(
        Array.from({ length: 50 }, (_, index) => index),
        10,
        async () => {
          const account = await createAccount(suite.t, token);
          await changed(account.account_number, 'deactivate', token);
          return account;
        },
      );
      const amountKobo = (index: number) => 53 * (index + 1);
      const results = await Promise.all(
        accounts.map((account, index) =>
          pair(
            index,
            () =>
              t.api.post(creditUrl(account.account_number), { amount: amountKobo(index) / 100 }, { token }),
            () => change(account.account_number, 'reactivate', token),
          ),
        ),
      );

      let landed = 0;
      for (const [index, [credited, reactivated]] of results.entries()) {
        assert.equal(reactivated.status, 200, `reactivate ${index}: ${reactivated.text}`);
        assert.equal(reactivated.body.data.status, 'active');
        const reactivatedAt = Date.parse(reactivated.body.data.status_changed_at);
        if (credited.status === 201) {
          landed++;
          const { transaction, account: after } = credited.body.data;
          assert.equal(after.status, 'active');
          assert.ok(
            Date.parse(transaction.created_at) >= reactivatedAt,
            `credit ${index} at ${transaction.created_at} is not dated before the reactivation at ${reactivated.body.data.status_changed_at}`,
          );
          assert.equal(reactivated.body.data.balance_kobo, 0, 'the reactivation came first');
        } else {
          assertError(credited, 409, 'ACCOUNT_INACTIVE', { what: `credit ${index}` });
        }
      }
      test.diagnostic(
        `${landed} credits landed after their reactivation, ${50 - landed} were refused before it`,
      );

      const ids = accounts.map((account) => account.id);
      const rows = await t.db.selectFrom('virtual_accounts').selectAll().where('id', 'in', ids).execute();
      const ledger = await t.db
        .selectFrom('account_transactions')
        .selectAll()
        .where('account_id', 'in', ids)
        .execute();
      for (const row of rows) {
        assert.equal(row.status, 'active');
        const early = ledger.filter(
          (entry) => entry.account_id === row.id && Number(entry.created_at) < Number(row.status_changed_at),
        );
        assert.deepEqual(early, [], `account ${row.account_number} has credits dated while it was inactive`);
      }
      assert.equal(ledger.length, landed);
      for (const [index, account] of accounts.entries()) {
        const expected = results[index]![0].status === 201 ? amountKobo(index) : 0;
        assert.equal((await read(account.account_number, token)).balance_kobo, expected);
      }
    });
  });
}
