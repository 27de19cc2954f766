import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKeyRing } from '../../src/platform/crypto/keys.js';
import { decrypt } from '../../src/platform/crypto/secret-box.js';
import { DIALECTS, TEST_ENCRYPTION_KEY, useApp } from '../support/app.js';
import { newPartner } from '../support/partners.js';
import { ROTATE_SECRET, WEBHOOK } from '../support/paths.js';
import { FAST_WEBHOOKS, settled } from '../support/webhooks.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook endpoints', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`webhook endpoint management [${dialect.name}]`, {
      skip: dialect.skip,
      concurrency: true,
    }, () => {
      const ctx = useApp(dialect.name, { env: FAST_WEBHOOKS });

      it('PUT sets the endpoint (201 with a secret); a new URL keeps the secret (200); GET hides it; DELETE removes it', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        const token = partner.token;

        const first = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/first' }, { token });
        assert.equal(first.status, 201, first.text);
        assert.equal(first.body.status, 'success');
        assert.equal(first.body.data.url, 'http://127.0.0.1:9/first');
        assert.equal(first.body.data.environment, 'sandbox');
        assert.match(first.body.data.secret, SECRET);

        const second = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/second' }, { token });
        assert.equal(second.status, 200, second.text);
        assert.equal(second.body.data.url, 'http://127.0.0.1:9/second');
        assert.equal(second.body.data.secret, first.body.data.secret, 'changing the URL keeps the secret');

        const read = await t.api.get(WEBHOOK, { token });
        assert.equal(read.status, 200, read.text);
        assert.equal(read.body.data.url, 'http://127.0.0.1:9/second');
        assert.equal(read.body.data.environment, 'sandbox');
        assert.equal('secret' in read.body.data, false, 'GET never shows the secret');
        assert.ok(!read.text.includes(first.body.data.secret));

        const removed = await t.api.delete(WEBHOOK, { token });
        assert.equal(removed.status, 200, removed.text);
        assert.equal(removed.body.data.url, 'http://127.0.0.1:9/second');
        const gone = await t.api.get(WEBHOOK, { token });
        assert.equal(gone.status, 404, gone.text);
        assert.equal(gone.body.error_code, 'NOT_FOUND');
        const again = await t.api.delete(WEBHOOK, { token });
        assert.equal(again.status, 404, again.text);

        const fresh = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/third' }, { token });
        assert.equal(fresh.status, 201, 'after a DELETE the next PUT sets a new endpoint');
        assert.notEqual(fresh.body.data.secret, first.body.data.secret, 'with a new secret');
      });

      it('rejects invalid URLs with 422 VALIDATION_FAILED on url', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        const invalid: unknown[] = [
          'not a url',
          'ftp://127.0.0.1/hooks',
          'javascript:alert(1)',
          'file:///etc/passwd',
          `http://127.0.0.1/${'a'.repeat(2048)}`,
          'http://user:pass@127.0.0.1/hooks',
          'http://user@127.0.0.1/hooks',
          '',
          '   ',
          42,
          null,
        ];
        for (const url of invalid) {
          const response = await t.api.put(WEBHOOK, { url }, { token: partner.token });
          assert.equal(response.status, 422, `${JSON.stringify(url).slice(0, 60)}: ${response.text}`);
          assert.equal(response.body.error_code, 'VALIDATION_FAILED');
          assert.ok(response.body.errors?.['url']?.length, response.text);
        }
        const missing = await t.api.put(WEBHOOK, {}, { token: partner.token });
        assert.equal(missing.status, 422, missing.text);
        assert.ok(missing.body.errors?.['url']?.length, missing.text);
        assert.equal((await t.api.get(WEBHOOK, { token: partner.token })).status, 404, 'nothing stored');

        const longest = `http://127.0.0.1/${'a'.repeat(2048 - 'http://127.0.0.1/'.length)}`;
        const atLimit = await t.api.put(WEBHOOK, { url: longest }, { token: partner.token });
        assert.equal(atLimit.status, 201, `a 2048-character URL is accepted: ${atLimit.text.slice(0, 200)}`);
      });

      it('rotate-secret without an endpoint is 404; with one it returns a new secret and keeps the old one 24 h', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        const none = await t.api.post(ROTATE_SECRET, undefined, { token: partner.token });
        assert.equal(none.status, 404, none.text);
        assert.equal(none.body.error_code, 'NOT_FOUND');

        const set = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/hooks' }, { token: partner.token });
        assert.equal(set.body.data.previous_secret_expires_at, null);
        const before = Date.now();
        const rotated = await t.api.post(ROTATE_SECRET, undefined, { token: partner.token });
        assert.equal(rotated.status, 200, rotated.text);
        assert.match(rotated.body.data.secret, SECRET);
        assert.notEqual(rotated.body.data.secret, set.body.data.secret);
        const expires = Date.parse(rotated.body.data.previous_secret_expires_at);
        const day = 24 * 60 * 60 * 1000;
        assert.ok(expires >= before + day - 1000 && expires <= Date.now() + day + 1000, rotated.text);

        const moved = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/moved' }, { token: partner.token });
        assert.equal(moved.status, 200);
        assert.equal(
          moved.body.data.secret,
          rotated.body.data.secret,
          'a later PUT returns the rotated secret',
        );
      });

      it('replays rotate-secret sent again with the same Idempotency-Key with secret: null, storing no secret', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        const token = partner.token;
        await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/hooks' }, { token });
        const headers = { 'idempotency-key': `rotate-${partner.companyId}` };
        const first = await t.api.post(ROTATE_SECRET, undefined, { token, headers });
        assert.equal(first.status, 200, first.text);
        const secret: string = first.body.data.secret;
        assert.match(secret, SECRET);

        const replay = await t.api.post(ROTATE_SECRET, undefined, { token, headers });
        assert.equal(replay.status, 200, replay.text);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal(replay.body.data.secret, null, 'a replay never shows the secret again');
        assert.deepEqual(
          { ...replay.body.data, secret },
          first.body.data,
          'everything else as first answered',
        );
        assert.match(replay.body.message, /shown only in the first response/);
        assert.ok(!replay.text.includes(secret.slice('whsec_'.length)), replay.text);
        // The replay rotated nothing: the first rotation's secret is still the current one.
        const current = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/hooks' }, { token });
        assert.equal(current.body.data.secret, secret);
        // The stored replay (encrypted at rest) does not hold the secret either.
        const record = await t.db
          .selectFrom('idempotency_keys')
          .select('response_body')
          .where('partner_id', '=', partner.companyId)
          .where('key', '=', headers['idempotency-key'])
          .executeTakeFirstOrThrow();
        const stored = decrypt(createKeyRing(TEST_ENCRYPTION_KEY).encryption, record.response_body ?? '');
        assert.ok(!stored.includes(secret.slice('whsec_'.length)), stored);
        assert.equal(JSON.parse(stored).data.secret, null);
      });

      it('stores the secret encrypted, never in clear', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'signed-in');
        const set = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/hooks' }, { token: partner.token });
        await t.api.post(ROTATE_SECRET, undefined, { token: partner.token });
        const rotated = await t.api.put(
          WEBHOOK,
          { url: 'http://127.0.0.1:9/hooks' },
          { token: partner.token },
        );
        const row = await t.db
          .selectFrom('webhook_endpoints')
          .selectAll()
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        const stored = JSON.stringify(row);
        for (const secret of [set.body.data.secret as string, rotated.body.data.secret as string]) {
          assert.ok(!stored.includes(secret), 'secret stored in clear');
          assert.ok(!stored.includes(secret.slice('whsec_'.length)), 'key stored in clear');
          assert.ok(!stored.includes(Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex')));
        }
        assert.ok(row.secret_encrypted.length > 0);
        assert.ok(row.previous_secret_encrypted && row.previous_secret_encrypted !== row.secret_encrypted);
      });

      it('keeps sandbox and live endpoints apart, and live URLs must be https', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'live');
        await settled(t, partner.companyId);

        const sandbox = await t.api.put(
          WEBHOOK,
          { url: 'http://127.0.0.1:9/sandbox' },
          { token: partner.token },
        );
        assert.equal(sandbox.status, 201, sandbox.text);
        assert.equal(
          (await t.api.get(WEBHOOK, { token: partner.liveToken })).status,
          404,
          'live has none yet',
        );

        const plain = await t.api.put(
          WEBHOOK,
          { url: 'http://127.0.0.1:9/live' },
          { token: partner.liveToken },
        );
        assert.equal(plain.status, 422, plain.text);
        assert.ok(plain.body.errors?.['url']?.length, plain.text);

        const live = await t.api.put(
          WEBHOOK,
          { url: 'https://127.0.0.1:9/live' },
          { token: partner.liveToken },
        );
        assert.equal(live.status, 201, `first live endpoint: ${live.text}`);
        assert.equal(live.body.data.environment, 'live');
        assert.notEqual(
          live.body.data.secret,
          sandbox.body.data.secret,
          'each environment has its own secret',
        );

        const sandboxRead = await t.api.get(WEBHOOK, { token: partner.token });
        assert.equal(sandboxRead.body.data.url, 'http://127.0.0.1:9/sandbox');
        const liveRead = await t.api.get(WEBHOOK, { token: partner.liveToken });
        assert.equal(liveRead.body.data.url, 'https://127.0.0.1:9/live');

        const rotated = await t.api.post(ROTATE_SECRET, undefined, { token: partner.liveToken });
        assert.equal(rotated.status, 200);
        const sandboxAgain = await t.api.put(
          WEBHOOK,
          { url: 'http://127.0.0.1:9/sandbox' },
          { token: partner.token },
        );
        assert.equal(
          sandboxAgain.body.data.secret,
          sandbox.body.data.secret,
          'rotating live leaves sandbox alone',
        );
        assert.equal(sandboxAgain.body.data.previous_secret_expires_at, null);

        assert.equal((await t.api.delete(WEBHOOK, { token: partner.liveToken })).status, 200);
        assert.equal((await t.api.get(WEBHOOK, { token: partner.token })).status, 200, 'sandbox survives');
      });

      it("another partner can neither see nor change a partner's endpoint", async () => {
        const { t, sink } = ctx;
        const owner = await newPartner({ t, sink }, 'signed-in');
        const other = await newPartner({ t, sink }, 'signed-in');
        const set = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/owner' }, { token: owner.token });
        assert.equal(set.status, 201);

        assert.equal((await t.api.get(WEBHOOK, { token: other.token })).status, 404);
        assert.equal((await t.api.delete(WEBHOOK, { token: other.token })).status, 404);
        assert.equal((await t.api.post(ROTATE_SECRET, undefined, { token: other.token })).status, 404);
        const theirs = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/other' }, { token: other.token });
        assert.equal(theirs.status, 201, 'the other partner gets an endpoint of its own');
        assert.notEqual(theirs.body.data.secret, set.body.data.secret);

        const mine = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/owner' }, { token: owner.token });
        assert.equal(mine.status, 200);
        assert.equal(mine.body.data.secret, set.body.data.secret, "the owner's secret is untouched");
        assert.equal(
          (await t.api.get(WEBHOOK, { token: owner.token })).body.data.url,
          'http://127.0.0.1:9/owner',
        );
      });

      it('needs a credential', async () => {
        const { t } = ctx;
        const response = await t.api.put(WEBHOOK, { url: 'http://127.0.0.1:9/hooks' });
        assert.equal(response.status, 401, response.text);
        assert.equal(response.body.error_code, 'UNAUTHENTICATED');
      });
    });
  }
});
