import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { isValidNuban } from '../../src/modules/virtual-accounts/nuban.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createTestDatabase, DIALECTS, startApp, type TestDatabase } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody } from '../support/factories.js';
import type { Api } from '../support/http.js';
import { createAccount, createApiKey, newPartner } from '../support/partners.js';
import { accountUrl, apiKeyUrl, CREATE_ACCOUNT, creditUrl } from '../support/paths.js';
import { SmtpSink } from '../support/smtp-sink.js';

type Instance = Awaited<ReturnType<typeof startApp>>;

for (const dialect of DIALECTS) {
  const skip =
    dialect.skip ||
    (dialect.name === 'sqlite'
      ? 'SQLite serves one process: two instances in one test process would wait on each other in busy_timeout'
      : false);

  describe(`two app instances on one database [${dialect.name}]`, { skip }, () => {
    let sink: SmtpSink;
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let one: Instance;
    let two: Instance;
    let key: string;
    let partnerId: number;
    let partnerToken: string;
    before(async () => {
      sink = await new SmtpSink().start();
      database = await createTestDatabase(dialect.name);
      one = await startApp(database, { env: { SMTP_URL: sink.url } });
      two = await startApp(database, { env: { SMTP_URL: sink.url } });
      handle = database.open();
      const partner = await newPartner({ t: one, sink }, 'signed-in');
      partnerId = partner.companyId;
      partnerToken = partner.token;
      key = (await createApiKey(two, partner.token, 'sandbox')).key;
    });
    after(async () => {
      await one?.stop();
      await two?.stop();
      await handle?.close();
      await database?.drop();
      await sink?.stop();
    });

    const apis = (): Api[] => [one.api, two.api];
    /** The stored accounts of an end-user e-mail, whichever instance wrote them. */
    const accountsWithEmail = (email: string) =>
      handle.db.selectFrom('virtual_accounts').select('id').where('customer_email', '=', email).execute();

    it('allocates distinct valid numbers to concurrent creates spread over both instances', async () => {
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          apis()[index % 2]!.post(CREATE_ACCOUNT, customerBody({ email: `spread-${index}@example.com` }), {
            token: key,
          }),
        ),
      );
      assert.deepEqual(
        responses.filter((response) => response.status !== 201).map((response) => response.text),
        [],
      );
      const numbers = responses.map((response) => response.body.data.account_number as string);
      assert.equal(new Set(numbers).size, 100);
      for (const number of numbers) assert.ok(isValidNuban('999999', number), number);
      const rows = await handle.db
        .selectFrom('virtual_accounts')
        .select('account_number')
        .where('partner_id', '=', partnerId)
        .where('customer_email', 'like', 'spread-%')
        .execute();
      assert.equal(rows.length, 100);
      assert.equal(new Set(rows.map((row) => row.account_number)).size, 100);
    });

    it('creates one account when both instances race on the same end-user e-mail; the rest get 409 with it', async () => {
      const email = `race-${randomUUID()}@example.com`;
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          apis()[index % 2]!.post(CREATE_ACCOUNT, customerBody({ email }), { token: key }),
        ),
      );
      const created = responses.filter((response) => response.status === 201);
      assert.equal(created.length, 1, responses.map((response) => response.text).join('\n'));
      for (const response of responses) {
        if (response === created[0]) continue;
        assertError(response, 409, 'VIRTUAL_ACCOUNT_EXISTS', { data: true });
        assert.equal(response.body.data.account_number, created[0]!.body.data.account_number);
      }
      assert.equal((await accountsWithEmail(email)).length, 1);
    });

    it('refuses a key revoked on one instance at once on the other, which verified it a moment before', async () => {
      const revocable = await createApiKey(one, partnerToken, 'sandbox');
      await createAccount(two, revocable.key);
      const revoked = await one.api.delete(apiKeyUrl(revocable.id), { token: partnerToken });
      assert.equal(revoked.status, 200, revoked.text);

      const email = `after-revocation-${randomUUID()}@example.com`;
      assertError(
        await two.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: revocable.key }),
        401,
        'UNAUTHENTICATED',
      );
      assert.equal((await accountsWithEmail(email)).length, 0);
    });

    it('shares idempotency records between instances: one account for one key', async () => {
      const body = customerBody();
      const idempotencyKey = randomUUID();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          apis()[index % 2]!.post(CREATE_ACCOUNT, body, {
            token: key,
            headers: { 'idempotency-key': idempotencyKey },
          }),
        ),
      );
      const originals = responses.filter(
        (response) => response.status === 201 && response.headers.get('idempotent-replayed') !== 'true',
      );
      assert.equal(originals.length, 1);
      for (const response of responses) {
        if (response.status === 409) assertError(response, 409, 'IDEMPOTENCY_IN_PROGRESS');
        else assert.equal(response.text, originals[0]!.text);
      }
      assert.equal((await accountsWithEmail(String(body['email']))).length, 1);
    });

    it('keeps the balance exact under concurrent credits through both instances', async () => {
      const account = (await one.api.post(CREATE_ACCOUNT, customerBody(), { token: key })).body.data;
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          apis()[index % 2]!.post(
            creditUrl(account.account_number),
            { amount: index % 2 ? 0.29 : '1.01' },
            { token: key },
          ),
        ),
      );
      assert.deepEqual(
        responses.filter((response) => response.status !== 201).map((response) => response.text),
        [],
      );
      const balances = responses.map((response) => response.body.data.account.balance_kobo as number);
      assert.equal(new Set(balances).size, 40, 'two credits saw the same balance');
      const read = await two.api.get(accountUrl(account.account_number), { token: key });
      assert.equal(read.body.data.balance_kobo, 20 * 29 + 20 * 101);
    });

    // Regression: the migrator once found kysely_migration* in other schemas and never created its own.
    it("migrates a fresh schema while another schema of the database already holds Kysely's migration tables", async () => {
      // `database` above is migrated, so its schema holds kysely_migration and kysely_migration_lock.
      const fresh = await createTestDatabase(dialect.name);
      try {
        const app = await startApp(fresh, { env: { SMTP_URL: sink.url } });
        try {
          const ready = await app.api.get('/readyz');
          assert.equal(ready.status, 200);
          const { rows } = await sql<{
            count: number;
          }>`select count(*)::int as count from information_schema.tables
              where table_schema = ${fresh.pgSchema} and table_name in ('virtual_accounts', 'kysely_migration')`.execute(
            handle.db,
          );
          assert.equal(rows[0]?.count, 2);
        } finally {
          await app.stop();
        }
      } finally {
        await fresh.drop();
      }
    });
  });
}
