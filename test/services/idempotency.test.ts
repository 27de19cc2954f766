import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type AppContext, DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody, memberBody } from '../support/factories.js';
import type { ApiResponse } from '../support/http.js';
import { addRepresentative } from '../support/onboarding.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import {
  API_KEYS,
  accountUrl,
  apiKeyUrl,
  CREATE_ACCOUNT,
  creditUrl,
  lifecycleUrl,
  ROTATE_SECRET,
  TEAM,
  VIRTUAL_ACCOUNTS,
  WEBHOOK,
} from '../support/paths.js';
import { columnsContaining } from '../support/records.js';

const REPLAYED = 'idempotent-replayed';
const withKey = (key: string) => ({ 'idempotency-key': key });

async function accountsFor(suite: AppContext, partnerId: number, email: string) {
  return suite.t.db
    .selectFrom('virtual_accounts')
    .select(['id', 'account_number', 'environment'])
    .where('partner_id', '=', partnerId)
    .where('customer_email', '=', email)
    .execute();
}

/**
 * Fault injection from outside the app: until the returned function runs, storing a completed
 * idempotent response fails (a trigger on idempotency_keys).
 */
async function responseStoreDown(suite: AppContext): Promise<() => Promise<void>> {
  const { t, dialect } = suite;
  const statements =
    dialect === 'sqlite'
      ? [
          sql`create trigger idempotency_store_down before update on idempotency_keys
              when new.status = 'completed' begin select raise(abort, 'response store down'); end`,
        ]
      : [
          sql`create function idempotency_store_down() returns trigger language plpgsql
              as $$ begin raise exception 'response store down'; end $$`,
          sql`create trigger idempotency_store_down before update on idempotency_keys for each row
              when (new.status = 'completed') execute function idempotency_store_down()`,
        ];
  for (const statement of statements) await statement.execute(t.db);
  return async () => {
    await sql`drop trigger idempotency_store_down${sql.raw(dialect === 'sqlite' ? '' : ' on idempotency_keys')}`.execute(
      t.db,
    );
    if (dialect === 'postgres') await sql`drop function idempotency_store_down()`.execute(t.db);
  };
}

for (const dialect of DIALECTS) {
  describe(`idempotency [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    let live: PartnerAt<'live'>;
    before(async () => {
      a = await newPartner(suite, 'sandbox');
      b = await newPartner(suite, 'sandbox');
      live = await newPartner(suite, 'live');
    });

    it('replays the first status and body byte for byte with Idempotent-Replayed: true, creating one row', async () => {
      const { t } = suite;
      const key = randomUUID();
      const body = customerBody();
      const first = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) });
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers.get(REPLAYED), null);

      const replay = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get(REPLAYED), 'true');
      assert.equal(replay.text, first.text);
      assert.match(String(replay.headers.get('content-type')), /^application\/json/);
      assert.ok(replay.headers.get('x-request-id'));
      assert.notEqual(replay.headers.get('x-request-id'), first.headers.get('x-request-id'));

      // The same JSON with its members in another order is the same request; so is a session of the same
      // partner and environment.
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await t.api.post(CREATE_ACCOUNT, reordered, { token: a.token, headers: withKey(key) });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get(REPLAYED), 'true');
      assert.equal(again.text, first.text);

      assert.equal((await accountsFor(suite, a.companyId, String(body['email']))).length, 1);
      const record = await t.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('partner_id', '=', a.companyId)
        .where('key', '=', key)
        .execute();
      assert.equal(record.length, 1);
      assert.equal(record[0]!.environment, 'sandbox');
      assert.equal(record[0]!.status, 'completed');
      assert.equal(record[0]!.response_status, 201);
      assert.ok(
        !String(record[0]!.response_body).includes(first.body.data.account_number),
        'stored in clear',
      );
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with a different body, creating nothing', async () => {
      const { t } = suite;
      const key = randomUUID();
      const body = customerBody();
      const first = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) });
      assert.equal(first.status, 201, first.text);
      const changed = { ...body, email: `other-${randomUUID()}@example.com` };
      assertError(
        await t.api.post(CREATE_ACCOUNT, changed, { token: a.sandboxKey, headers: withKey(key) }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assertError(
        await t.api.post(
          CREATE_ACCOUNT,
          { ...body, first_name: 'Changed' },
          { token: a.token, headers: withKey(key) },
        ),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assert.deepEqual(await accountsFor(suite, a.companyId, String(changed.email)), []);
      // The original is still replayed.
      const replay = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) });
      assert.equal(replay.text, first.text);
    });

    it('lets 10 concurrent requests with one key create exactly one account; the others replay or get 409 IDEMPOTENCY_IN_PROGRESS', async () => {
      const { t } = suite;
      const key = randomUUID();
      const body = customerBody();
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) }),
        ),
      );
      const originals = responses.filter(
        (response) => response.status === 201 && response.headers.get(REPLAYED) !== 'true',
      );
      assert.equal(
        originals.length,
        1,
        responses.map((response) => `${response.status} ${response.text}`).join('\n'),
      );
      for (const response of responses) {
        if (response === originals[0]) continue;
        if (response.status === 201) {
          assert.equal(response.headers.get(REPLAYED), 'true');
          assert.equal(response.text, originals[0]!.text);
        } else {
          assertError(response, 409, 'IDEMPOTENCY_IN_PROGRESS');
        }
      }
      assert.equal((await accountsFor(suite, a.companyId, String(body['email']))).length, 1);
    });

    it('scopes keys to partner and environment: the same key elsewhere is independent', async () => {
      const { t } = suite;
      const key = randomUUID();
      const inSandbox = await t.api.post(CREATE_ACCOUNT, customerBody(), {
        token: live.sandboxKey,
        headers: withKey(key),
      });
      assert.equal(inSandbox.status, 201, inSandbox.text);
      const liveBody = customerBody();
      const inLive = await t.api.post(CREATE_ACCOUNT, liveBody, {
        token: live.liveKey,
        headers: withKey(key),
      });
      assert.equal(inLive.status, 201, inLive.text);
      assert.equal(inLive.headers.get(REPLAYED), null);
      assert.equal(inLive.body.data.environment, 'live');
      const liveReplay = await t.api.post(CREATE_ACCOUNT, liveBody, {
        token: live.liveToken,
        headers: withKey(key),
      });
      assert.equal(liveReplay.headers.get(REPLAYED), 'true');
      assert.equal(liveReplay.text, inLive.text);

      // Another partner sending the very same key and body gets its own account, not a replay.
      const sameBody = customerBody();
      const mine = await t.api.post(CREATE_ACCOUNT, sameBody, {
        token: a.sandboxKey,
        headers: withKey(`${key}-x`),
      });
      const theirs = await t.api.post(CREATE_ACCOUNT, sameBody, {
        token: b.sandboxKey,
        headers: withKey(`${key}-x`),
      });
      assert.equal(mine.status, 201, mine.text);
      assert.equal(theirs.status, 201, theirs.text);
      assert.equal(theirs.headers.get(REPLAYED), null);
      assert.notEqual(theirs.body.data.account_number, mine.body.data.account_number);
      assert.equal((await accountsFor(suite, b.companyId, String(sameBody['email']))).length, 1);

      const records = await t.db
        .selectFrom('idempotency_keys')
        .select(['partner_id', 'environment'])
        .where('key', 'in', [key, `${key}-x`])
        .orderBy('partner_id')
        .orderBy('environment')
        .execute();
      assert.equal(records.length, 4);
    });

    it('replays POST api-keys without the secret (shown once, never stored), and the key itself is the one issued', async () => {
      const { t } = suite;
      const key = randomUUID();
      const name = `idempotent-${randomUUID()}`;
      const first = await t.api.post(
        API_KEYS,
        { name, environment: 'sandbox' },
        { token: a.token, headers: withKey(key) },
      );
      assert.equal(first.status, 201, first.text);
      const secret: string = first.body.data.key;
      assert.match(secret, /^sk_sandbox_/);
      const replay = await t.api.post(
        API_KEYS,
        { name, environment: 'sandbox' },
        { token: a.token, headers: withKey(key) },
      );
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get(REPLAYED), 'true');
      assert.equal(replay.body.data.key, null, 'a replay never shows the secret again');
      assert.deepEqual(
        { ...replay.body.data, key: secret },
        first.body.data,
        'everything else as first answered',
      );
      assert.match(replay.body.message, /shown only in the first response/);
      assert.ok(!replay.text.includes(secret.slice('sk_sandbox_'.length)));

      const rows = await t.db.selectFrom('api_keys').select('id').where('name', '=', name).execute();
      assert.equal(rows.length, 1);
      // The secret is in no column, encrypted or not: the stored replay does not hold it either.
      assert.deepEqual(await columnsContaining(suite, secret.slice('sk_sandbox_'.length)), []);
      const record = await t.db
        .selectFrom('idempotency_keys')
        .select('response_body')
        .where('partner_id', '=', a.companyId)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      assert.ok(record.response_body && !record.response_body.includes(secret));
      // Revoked or not, a replay cannot hand the key out.
      const revoked = await t.api.delete(apiKeyUrl(first.body.data.id), { token: a.token });
      assert.equal(revoked.status, 200, revoked.text);
      const afterRevoke = await t.api.post(
        API_KEYS,
        { name, environment: 'sandbox' },
        { token: a.token, headers: withKey(key) },
      );
      assert.equal(afterRevoke.body.data.key, null);
      assert.equal((await t.api.get(VIRTUAL_ACCOUNTS, { token: secret })).status, 401);
    });

    it('replays an error response too (409 VIRTUAL_ACCOUNT_EXISTS), as first answered', async () => {
      const { t } = suite;
      const body = customerBody();
      const created = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey });
      assert.equal(created.status, 201, created.text);
      const key = randomUUID();
      const conflict = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) });
      assertError(conflict, 409, 'VIRTUAL_ACCOUNT_EXISTS', { data: true });
      assert.equal(conflict.body.data.balance_kobo, 0);

      const credited = await t.api.post(
        creditUrl(created.body.data.account_number),
        { amount: 7 },
        { token: a.sandboxKey },
      );
      assert.equal(credited.status, 201, credited.text);
      const replay = await t.api.post(CREATE_ACCOUNT, body, { token: a.sandboxKey, headers: withKey(key) });
      assert.equal(replay.status, 409);
      assert.equal(replay.headers.get(REPLAYED), 'true');
      assert.equal(replay.text, conflict.text);
    });

    it('answers 422 VALIDATION_FAILED for an empty Idempotency-Key or one over 255 characters, creating nothing', async () => {
      const { t } = suite;
      for (const key of ['', 'k'.repeat(256)]) {
        const body = customerBody();
        const response = await t.api.post(CREATE_ACCOUNT, body, {
          token: a.sandboxKey,
          headers: withKey(key),
        });
        assertError(response, 422, 'VALIDATION_FAILED');
        assert.ok(
          Object.keys(response.body.errors ?? {}).some((field) => /idempotency/i.test(field)),
          response.text,
        );
        assert.deepEqual(await accountsFor(suite, a.companyId, String(body['email'])), []);
      }
    });

    it('takes an Idempotency-Key of 255 characters', async () => {
      const { t } = suite;
      const longest = await t.api.post(CREATE_ACCOUNT, customerBody(), {
        token: a.sandboxKey,
        headers: withKey('k'.repeat(255)),
      });
      assert.equal(longest.status, 201, longest.text);
    });

    it('credits once for a simulate-credit retried 5 times with one key, sequentially or concurrently', async () => {
      const { t } = suite;
      const account = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: a.sandboxKey })).body.data;
      const url = creditUrl(account.account_number);
      const key = randomUUID();
      const responses = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        responses.push(
          await t.api.post(
            url,
            { amount: '250.75', narration: 'retry me' },
            { token: a.sandboxKey, headers: withKey(key) },
          ),
        );
      }
      for (const response of responses) {
        assert.equal(response.status, 201, response.text);
        assert.equal(response.text, responses[0]!.text);
      }
      assert.equal(responses.filter((response) => response.headers.get(REPLAYED) === 'true').length, 4);

      const concurrentKey = randomUUID();
      const concurrent = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.api.post(url, { amount: 1 }, { token: a.sandboxKey, headers: withKey(concurrentKey) }),
        ),
      );
      for (const response of concurrent) {
        if (response.status !== 201) assertError(response, 409, 'IDEMPOTENCY_IN_PROGRESS');
      }
      const ledger = await t.db
        .selectFrom('account_transactions')
        .select('amount_kobo')
        .where('account_id', '=', account.id)
        .execute();
      assert.deepEqual(
        ledger.map((row) => Number(row.amount_kobo)).sort((x, y) => x - y),
        [100, 25075],
      );
      const read = await t.api.get(accountUrl(account.account_number), { token: a.sandboxKey });
      assert.equal(read.body.data.balance_kobo, 25175);

      // The same key and body for another account is another request.
      const other = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: a.sandboxKey })).body.data;
      assertError(
        await t.api.post(
          creditUrl(other.account_number),
          { amount: '250.75', narration: 'retry me' },
          { token: a.sandboxKey, headers: withKey(key) },
        ),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      const otherLedger = await t.db
        .selectFrom('account_transactions')
        .select('id')
        .where('account_id', '=', other.id)
        .execute();
      assert.deepEqual(otherLedger, []);
    });

    it('answers 409 IDEMPOTENCY_IN_PROGRESS with Retry-After while the first request with the key is unfinished', async () => {
      const { t } = suite;
      const account = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: a.sandboxKey })).body.data;
      const key = randomUUID();
      const body = { amount: 3 };
      const first = await t.api.post(creditUrl(account.account_number), body, {
        token: a.sandboxKey,
        headers: withKey(key),
      });
      assert.equal(first.status, 201, first.text);
      // Put the record back in the state it has while its request runs.
      await t.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_progress', response_status: null, response_body: null })
        .where('partner_id', '=', a.companyId)
        .where('key', '=', key)
        .execute();
      const pending = await t.api.post(creditUrl(account.account_number), body, {
        token: a.sandboxKey,
        headers: withKey(key),
      });
      assertError(pending, 409, 'IDEMPOTENCY_IN_PROGRESS');
      assert.ok(Number(pending.headers.get('retry-after')) >= 1, String(pending.headers.get('retry-after')));
      const ledger = await t.db
        .selectFrom('account_transactions')
        .select('id')
        .where('account_id', '=', account.id)
        .execute();
      assert.equal(ledger.length, 1);
    });

    it('honours the key on team-member creation as on every POST under /services/', async () => {
      const { t } = suite;
      await addRepresentative(t, b.token);
      const key = randomUUID();
      const body = memberBody();
      const first = await t.api.post(TEAM, body, { token: b.sandboxKey, headers: withKey(key) });
      assert.equal(first.status, 201, first.text);
      const replay = await t.api.post(TEAM, body, { token: b.sandboxKey, headers: withKey(key) });
      assert.equal(replay.headers.get(REPLAYED), 'true');
      assert.equal(replay.text, first.text);
      const rows = await t.db
        .selectFrom('team_members')
        .select('id')
        .where('email', '=', String(body['email']))
        .execute();
      assert.equal(rows.length, 1);
      // A key already used on another endpoint, with another body, is a reuse.
      assertError(
        await t.api.post(CREATE_ACCOUNT, customerBody(), { token: b.sandboxKey, headers: withKey(key) }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });
  });

  describe(`idempotency retention and server errors [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('does not keep a 5xx answer: a retry with the key runs again', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const key = randomUUID();
      const body = customerBody();
      // Fault injection from outside the app: the create's audit insert fails, so its transaction does.
      await sql`alter table audit_events rename to audit_events_offline`.execute(t.db);
      let failed: ApiResponse;
      try {
        failed = await t.api.post(CREATE_ACCOUNT, body, { token: partner.sandboxKey, headers: withKey(key) });
      } finally {
        await sql`alter table audit_events_offline rename to audit_events`.execute(t.db);
      }
      assertError(failed, 500, 'INTERNAL_ERROR');
      assert.doesNotMatch(failed.text, /audit_events|relation|no such table|SQLITE/i);
      const records = await t.db
        .selectFrom('idempotency_keys')
        .select('status')
        .where('partner_id', '=', partner.companyId)
        .where('key', '=', key)
        .execute();
      assert.deepEqual(records, []);
      assert.deepEqual(await accountsFor(suite, partner.companyId, String(body['email'])), []);

      const retried = await t.api.post(CREATE_ACCOUNT, body, {
        token: partner.sandboxKey,
        headers: withKey(key),
      });
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.headers.get(REPLAYED), null);
      assert.equal((await accountsFor(suite, partner.companyId, String(body['email']))).length, 1);
    });

    it("records the response in the write's own transaction: a write whose response cannot be stored is not applied", async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const account = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: partner.sandboxKey })).body
        .data;
      const creditKey = randomUUID();
      const createKey = randomUUID();
      const customer = customerBody();
      // Fault injection from outside the app: storing a completed response fails. Were the response
      // stored after the commit, the credit and the account would stay while a retry ran them again.
      const restore = await responseStoreDown(suite);
      let credit: ApiResponse;
      let create: ApiResponse;
      try {
        credit = await t.api.post(
          creditUrl(account.account_number),
          { amount: 10 },
          { token: partner.sandboxKey, headers: withKey(creditKey) },
        );
        create = await t.api.post(CREATE_ACCOUNT, customer, {
          token: partner.sandboxKey,
          headers: withKey(createKey),
        });
      } finally {
        await restore();
      }
      assertError(credit, 500, 'INTERNAL_ERROR');
      assertError(create, 500, 'INTERNAL_ERROR');
      const ledger = () =>
        t.db
          .selectFrom('account_transactions')
          .select('amount_kobo')
          .where('account_id', '=', account.id)
          .execute();
      assert.deepEqual(await ledger(), []);
      assert.deepEqual(await accountsFor(suite, partner.companyId, String(customer['email'])), []);

      // Both keys were released with their failed writes, so the retries run once and then replay.
      for (const attempt of [1, 2]) {
        const retriedCredit = await t.api.post(
          creditUrl(account.account_number),
          { amount: 10 },
          { token: partner.sandboxKey, headers: withKey(creditKey) },
        );
        assert.equal(retriedCredit.status, 201, retriedCredit.text);
        assert.equal(retriedCredit.headers.get(REPLAYED), attempt === 1 ? null : 'true');
        const retriedCreate = await t.api.post(CREATE_ACCOUNT, customer, {
          token: partner.sandboxKey,
          headers: withKey(createKey),
        });
        assert.equal(retriedCreate.status, 201, retriedCreate.text);
        assert.equal(retriedCreate.headers.get(REPLAYED), attempt === 1 ? null : 'true');
      }
      assert.deepEqual(
        (await ledger()).map((row) => Number(row.amount_kobo)),
        [1000],
      );
      assert.equal((await accountsFor(suite, partner.companyId, String(customer['email']))).length, 1);
    });

    it("records every idempotent route's answer in its write's transaction: with the response store down, a team member, a webhook secret rotation and a deactivation are not applied", async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      await addRepresentative(t, partner.token);
      const account = (await t.api.post(CREATE_ACCOUNT, customerBody(), { token: partner.sandboxKey })).body
        .data;
      const set = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/baas' }, { token: partner.sandboxKey });
      assert.equal(set.status, 201, set.text);
      const member = memberBody();
      const requests = () => [
        t.api.post(TEAM, member, { token: partner.token, headers: withKey(`team-${dialect.name}`) }),
        t.api.post(
          ROTATE_SECRET,
          {},
          { token: partner.sandboxKey, headers: withKey(`rotate-${dialect.name}`) },
        ),
        t.api.post(
          lifecycleUrl(account.account_number, 'deactivate'),
          { reason: 'Review' },
          { token: partner.sandboxKey, headers: withKey(`deactivate-${dialect.name}`) },
        ),
      ];
      const secretOf = async () =>
        (
          await t.db
            .selectFrom('webhook_endpoints')
            .select('secret_encrypted')
            .where('partner_id', '=', partner.companyId)
            .executeTakeFirstOrThrow()
        ).secret_encrypted;
      const secretBefore = await secretOf();
      const restore = await responseStoreDown(suite);
      let failed: ApiResponse[];
      try {
        failed = await Promise.all(requests());
      } finally {
        await restore();
      }
      for (const answer of failed) assertError(answer, 500, 'INTERNAL_ERROR');
      const members = await t.db
        .selectFrom('team_members')
        .select('id')
        .where('partner_id', '=', partner.companyId)
        .execute();
      assert.deepEqual(members, [], 'no team member');
      assert.equal(await secretOf(), secretBefore, 'the secret was not rotated');
      const read = await t.api.get(accountUrl(account.account_number), { token: partner.sandboxKey });
      assert.equal(read.body.data.status, 'active', 'the account was not deactivated');

      // The keys were released with their failed writes: the retries run once, then replay the same bytes.
      const first = await Promise.all(requests());
      for (const answer of first) {
        assert.ok([200, 201].includes(answer.status), answer.text);
        assert.equal(answer.headers.get(REPLAYED), null);
      }
      const again = await Promise.all(requests());
      for (const [index, answer] of again.entries()) {
        assert.equal(answer.headers.get(REPLAYED), 'true');
        assert.equal(answer.status, first[index]!.status);
        if (index !== 1) assert.equal(answer.text, first[index]!.text, 'the first answer, byte for byte');
      }
      assert.equal(again[1]!.body.data.secret, null, 'a rotation replays without its secret');
    });

    it('keeps a key 24 hours, after which it can be used again with a different body', async () => {
      const { t } = suite;
      // API keys do not expire, so they outlive the clock jumps (sessions last 2 hours).
      const partner = await newPartner(suite, 'sandbox');
      const key = randomUUID();
      const first = await t.api.post(CREATE_ACCOUNT, customerBody(), {
        token: partner.sandboxKey,
        headers: withKey(key),
      });
      assert.equal(first.status, 201, first.text);

      t.clock.advance(24 * 3600 * 1000 - 1000);
      const second = customerBody();
      assertError(
        await t.api.post(CREATE_ACCOUNT, second, { token: partner.sandboxKey, headers: withKey(key) }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      t.clock.advance(1000 + 1);
      const reused = await t.api.post(CREATE_ACCOUNT, second, {
        token: partner.sandboxKey,
        headers: withKey(key),
      });
      assert.equal(reused.status, 201, reused.text);
      assert.equal(reused.headers.get(REPLAYED), null);
      assert.notEqual(reused.body.data.account_number, first.body.data.account_number);
      assert.equal((await accountsFor(suite, partner.companyId, String(second['email']))).length, 1);

      const replay = await t.api.post(CREATE_ACCOUNT, second, {
        token: partner.sandboxKey,
        headers: withKey(key),
      });
      assert.equal(replay.headers.get(REPLAYED), 'true');
      assert.equal(replay.text, reused.text);
    });
  });
}
