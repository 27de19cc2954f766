import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import argon2 from 'argon2';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { randomPassword, registration, uniqueEmail } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { LOGIN, REGISTER } from '../support/paths.js';
import { auditActions } from '../support/records.js';

const FIELDS = ['business_name', 'email', 'password', 'password_confirmation', 'phone'] as const;
/** Fields whose validity does not depend on another field. */
const INDEPENDENT = ['business_name', 'email', 'phone'] as const;

const WRONG_TYPES: Array<[string, unknown]> = [
  ['a number', 12345678],
  ['an array', ['Acme Payments Ltd']],
  ['an object', { value: 'Acme Payments Ltd' }],
  ['null', null],
  ['a boolean', true],
];

for (const dialect of DIALECTS) {
  describe(`POST /client/onboarding/register [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('returns 201 with data {company_id, email} and stores the account unverified', async () => {
      const body = registration();
      const response = await ctx.t.api.post(REGISTER, body);
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.status, 'success');
      assert.equal(typeof response.body.message, 'string');
      assert.ok(Number.isInteger(response.body.data.company_id), response.text);
      assert.deepEqual(Object.keys(response.body.data).sort(), ['company_id', 'email']);
      assert.equal(response.body.data.email, body.email);
      assert.equal(response.body.error_code, undefined);

      const row = await ctx.t.db
        .selectFrom('partners')
        .selectAll()
        .where('id', '=', response.body.data.company_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.email, body.email);
      assert.equal(row.business_name, body.business_name);
      assert.equal(row.phone, '+2348031234567', 'the phone in E.164 (docs/decisions.md, "Phone numbers")');
      assert.equal(row.verified_at, null);
      assert.equal(row.onboarding_status, 'in_progress');
    });

    it('lower-cases and trims the e-mail, trims the other text fields, and mails the code there', async () => {
      const email = uniqueEmail('Ada.Lovelace');
      const shouted = `  ${email.toUpperCase()}\t`;
      const response = await ctx.t.api.post(
        REGISTER,
        registration({ email: shouted, business_name: '  Acme Payments Ltd  ', phone: ' 08031234567 ' }),
      );
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.email, email.toLowerCase());
      const row = await ctx.t.db
        .selectFrom('partners')
        .selectAll()
        .where('id', '=', response.body.data.company_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.email, email.toLowerCase());
      assert.equal(row.business_name, 'Acme Payments Ltd');
      assert.equal(row.phone, '+2348031234567');
      const mail = await ctx.sink.waitForMail(email.toLowerCase());
      assert.match(mail.raw, /verification code is \d{6}/);
    });

    for (const field of FIELDS) {
      it(`returns 422 VALIDATION_FAILED naming ${field} when it is missing, empty or blank`, async () => {
        for (const value of [undefined, '', '   ', '\t\n  ']) {
          const body: Record<string, unknown> = registration();
          if (value === undefined) delete body[field];
          else body[field] = value;
          const response = await ctx.t.api.post(REGISTER, body);
          assertError(response, 422, 'VALIDATION_FAILED', { fields: [field] });
          for (const other of INDEPENDENT) {
            if (other !== field) assert.equal(response.body.errors?.[other], undefined, response.text);
          }
        }
      });

      it(`returns 422 naming ${field} when it is not a string (number, array, object, null, boolean)`, async () => {
        for (const [label, value] of WRONG_TYPES) {
          const response = await ctx.t.api.post(REGISTER, registration({ [field]: value }));
          assert.equal(response.status, 422, `${field} as ${label}: ${response.text}`);
          assertError(response, 422, 'VALIDATION_FAILED', { fields: [field] });
        }
      });

      it(`returns 422 naming ${field} when it contains a NUL character`, async () => {
        const body: Record<string, unknown> = registration();
        const value = String(body[field]);
        body[field] = `${value.slice(0, 3)}\u0000${value.slice(3)}`;
        if (field === 'password') body['password_confirmation'] = body[field];
        if (field === 'password_confirmation') body['password'] = body[field];
        const response = await ctx.t.api.post(REGISTER, body);
        assertError(response, 422, 'VALIDATION_FAILED', { fields: [field] });
      });
    }

    it('returns 422 naming every missing field at once for an empty object', async () => {
      const response = await ctx.t.api.post(REGISTER, {});
      assertError(response, 422, 'VALIDATION_FAILED');
      for (const field of FIELDS)
        assert.ok(response.body.errors?.[field], `errors.${field}: ${response.text}`);
    });

    it('accepts a business_name of 191 characters (also non-ASCII) and refuses 192', async () => {
      const ascii = await ctx.t.api.post(REGISTER, registration({ business_name: 'B'.repeat(191) }));
      assert.equal(ascii.status, 201, ascii.text);
      const accented = await ctx.t.api.post(REGISTER, registration({ business_name: 'é'.repeat(191) }));
      assert.equal(accented.status, 201, accented.text);
      const row = await ctx.t.db
        .selectFrom('partners')
        .select('business_name')
        .where('id', '=', accented.body.data.company_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.business_name, 'é'.repeat(191));

      const tooLong = await ctx.t.api.post(REGISTER, registration({ business_name: 'B'.repeat(192) }));
      assertError(tooLong, 422, 'VALIDATION_FAILED', { fields: ['business_name'] });
    });

    it('refuses a 7-character password and accepts 8 and 128 characters', async () => {
      const seven = randomPassword(7);
      const short = await ctx.t.api.post(
        REGISTER,
        registration({ password: seven, password_confirmation: seven }),
      );
      assertError(short, 422, 'VALIDATION_FAILED', { fields: ['password'] });

      for (const length of [8, 128]) {
        const password = randomPassword(length);
        const ok = await ctx.t.api.post(
          REGISTER,
          registration({ password, password_confirmation: password }),
        );
        assert.equal(ok.status, 201, `${length} characters: ${ok.text}`);
        const login = await ctx.t.api.post(LOGIN, { email: ok.body.data.email, password });
        // The password was stored: the unverified account is recognised by it.
        assertError(login, 403, 'ACCOUNT_NOT_VERIFIED');
      }
    });

    it('counts the 8-128 characters of a password on its NFKC form, the one that is hashed', async () => {
      // e + combining acute: 8 code points as sent, "éééé" (4) once normalised.
      const shrinks = 'e\u0301'.repeat(4);
      // The ligature ﬀ is "ff" once normalised: 65 sent are 130, 64 are 128, 5 are 10.
      const cases: Array<[string, string, number]> = [
        ['8 sent, 4 normalised', shrinks, 422],
        ['65 sent, 130 normalised', '\uFB00'.repeat(65), 422],
        ['64 sent, 128 normalised', '\uFB00'.repeat(64), 201],
        ['5 sent, 10 normalised', `${'\uFB00'.repeat(4)}q`, 201],
      ];
      for (const [what, password, status] of cases) {
        const response = await ctx.t.api.post(
          REGISTER,
          registration({ password, password_confirmation: password }),
        );
        if (status === 422) {
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['password'], what });
          continue;
        }
        assert.equal(response.status, 201, `${what}: ${response.text}`);
        const login = await ctx.t.api.post(LOGIN, { email: response.body.data.email, password });
        assertError(login, 403, 'ACCOUNT_NOT_VERIFIED');
      }
    });

    it('refuses a 129-character password', async () => {
      const password = randomPassword(129);
      const response = await ctx.t.api.post(
        REGISTER,
        registration({ password, password_confirmation: password }),
      );
      assertError(response, 422, 'VALIDATION_FAILED', { fields: ['password'] });
    });

    it('returns 422 naming password_confirmation when it does not match', async () => {
      for (const confirmation of [
        'Kobo-Ledger-Sunrise-43',
        'kobo-ledger-sunrise-42',
        'Kobo-Ledger-Sunrise-4',
      ]) {
        const response = await ctx.t.api.post(
          REGISTER,
          registration({ password_confirmation: confirmation }),
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['password_confirmation'] });
      }
    });

    it('refuses common passwords with errors.password', async () => {
      for (const password of ['password123', 'qwertyuiop', 'Password123']) {
        const response = await ctx.t.api.post(
          REGISTER,
          registration({ password, password_confirmation: password }),
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['password'] });
      }
    });

    it('accepts phone numbers of up to 20 digits, spaces, +, -, ( and ), stored in E.164', async () => {
      for (const [phone, e164] of [
        ['+234 (803) 123-4567', '+2348031234567'],
        ['0 803 123 45 67', '+2348031234567'],
        [`+${'1'.repeat(15)}`, `+${'1'.repeat(15)}`],
      ] as const) {
        const response = await ctx.t.api.post(REGISTER, registration({ phone }));
        assert.equal(response.status, 201, `${phone}: ${response.text}`);
        const row = await ctx.t.db
          .selectFrom('partners')
          .select('phone')
          .where('id', '=', response.body.data.company_id)
          .executeTakeFirstOrThrow();
        assert.equal(row.phone, e164, phone);
      }
    });

    it('refuses phones that are too short, too long, hold other characters or are no phone number', async () => {
      for (const phone of [
        '123456',
        '1234567',
        `+${'1'.repeat(19)}`,
        '+234 (0) 803 - 123 - 4567',
        '1'.repeat(21),
        '0803-CALL-NOW',
        '08031234567x',
        '+234.803.123.4567',
        '0803#1234567',
        '0803\n1234567',
        '０８０３１２３４５６７',
      ]) {
        const response = await ctx.t.api.post(REGISTER, registration({ phone }));
        assert.equal(response.status, 422, `${JSON.stringify(phone)}: ${response.text}`);
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['phone'] });
      }
    });

    it('refuses malformed e-mail addresses with errors.email', async () => {
      for (const email of [
        'plainaddress',
        'ada@example',
        '@example.com',
        'ada@',
        'ada@@example.com',
        'ada lovelace@example.com',
        'ada@exam ple.com',
        'ada@-example.com',
        'ada@example..com',
        '<ada@example.com>',
        'ada@example.com\r\nBcc: victim@example.com',
        `${'a'.repeat(250)}@example.com`,
      ]) {
        const response = await ctx.t.api.post(REGISTER, registration({ email }));
        assert.equal(response.status, 422, `${JSON.stringify(email)}: ${response.text}`);
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['email'] });
      }
    });

    it('returns 422 naming email when the e-mail is taken in another letter case', async () => {
      const first = await newPartner(ctx, 'registered');
      const shouted = first.email.toUpperCase();
      const response = await ctx.t.api.post(REGISTER, registration({ email: shouted }));
      assertError(response, 422, 'VALIDATION_FAILED', { fields: ['email'] });
      const rows = await ctx.t.db
        .selectFrom('partners')
        .select('id')
        .where('email', '=', first.email)
        .execute();
      assert.equal(rows.length, 1);
    });

    it('creates exactly one account when the same e-mail registers concurrently', async () => {
      const email = uniqueEmail('race');
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          ctx.t.api.post(REGISTER, registration({ email: i % 2 ? email.toUpperCase() : email })),
        ),
      );
      const created = responses.filter((r) => r.status === 201);
      assert.equal(created.length, 1, responses.map((r) => r.status).join(','));
      for (const response of responses.filter((r) => r.status !== 201))
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['email'] });
      const rows = await ctx.t.db.selectFrom('partners').select('id').where('email', '=', email).execute();
      assert.equal(rows.length, 1);
    });

    it('ignores unknown fields and stores none of them', async () => {
      const email = uniqueEmail('mass');
      const response = await ctx.t.api.post(REGISTER, {
        ...registration({ email }),
        id: 1,
        company_id: 987654,
        verified: true,
        verified_at: 1,
        onboarding_status: 'active',
        business_type: 'limited_liability',
        legal_business_name: 'Evil Corp',
        environment: 'live',
        password_hash: 'not-a-hash',
        is_admin: true,
      });
      assert.equal(response.status, 201, response.text);
      assert.notEqual(response.body.data.company_id, 987654);
      const row = await ctx.t.db
        .selectFrom('partners')
        .selectAll()
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      assert.equal(row.id, response.body.data.company_id);
      assert.equal(row.verified_at, null);
      assert.equal(row.onboarding_status, 'in_progress');
      assert.equal(row.business_type, null);
      assert.equal(row.legal_business_name, 'Acme Payments Ltd');
      assert.match(row.password_hash, /^\$argon2id\$/);
      const login = await ctx.t.api.post(LOGIN, { email, password: registration().password });
      assertError(login, 403, 'ACCOUNT_NOT_VERIFIED');
    });

    it('stores the password as an argon2id hash with m=19456, t=2, p=1', async () => {
      const account = await newPartner(ctx, 'registered');
      const row = await ctx.t.db
        .selectFrom('partners')
        .select('password_hash')
        .where('id', '=', account.companyId)
        .executeTakeFirstOrThrow();
      const phc = /^\$argon2id\$v=19\$([a-z0-9=,]+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(row.password_hash);
      assert.ok(phc, `not an argon2id PHC string: ${row.password_hash}`);
      // PHC parameters may come in any order (node-argon2 writes m,p,t).
      const params = Object.fromEntries(phc[1]!.split(',').map((pair) => pair.split('=')));
      assert.deepEqual(params, { m: '19456', t: '2', p: '1' });
      assert.ok(!row.password_hash.includes(account.password));
      assert.equal(await argon2.verify(row.password_hash, account.password), true);
      assert.equal(await argon2.verify(row.password_hash, `${account.password}x`), false);
    });

    it('stores only a keyed hash of the OTP, valid for 10 minutes', async () => {
      const account = await newPartner(ctx, 'registered');
      const code = await ctx.sink.otpFor(account.email);
      const row = await ctx.t.db
        .selectFrom('one_time_codes')
        .selectAll()
        .where('email', '=', account.email)
        .where('purpose', '=', 'verify')
        .executeTakeFirstOrThrow();
      assert.ok(!row.code_hash.includes(code), 'code_hash must not contain the code');
      assert.equal(row.attempts, 0);
      assert.equal(row.expires_at - row.created_at, 10 * 60 * 1000);
      // Unkeyed digests of a 6-digit code are reversible by brute force, so none may be what is stored.
      for (const input of [code, `${account.email}:${code}`, `verify:${account.email}:${code}`]) {
        for (const algorithm of ['sha256', 'sha1', 'md5', 'sha512']) {
          for (const encoding of ['hex', 'base64', 'base64url'] as const) {
            const digest = createHash(algorithm).update(input).digest(encoding);
            assert.notEqual(row.code_hash, digest, `${algorithm}/${encoding} of the code`);
            assert.notEqual(row.code_hash, createHmac(algorithm, '').update(input).digest(encoding));
          }
        }
      }
    });

    it("records an 'account.registered' audit event with the request id", async () => {
      const account = await newPartner(ctx, 'registered');
      const events = await auditActions(ctx.t, account.companyId, 'account.registered');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.request_id, account.registration.headers.get('x-request-id'));
    });
  });
}
