import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { memberBody } from '../support/factories.js';
import { allPages } from '../support/http.js';
import { addRepresentative } from '../support/onboarding.js';
import { createApiKey, newPartner, type PartnerAt } from '../support/partners.js';
import { memberUrl, TEAM } from '../support/paths.js';
import { columnsContaining } from '../support/records.js';

const RECORD_FIELDS = [
  'address',
  'bvn',
  'created_at',
  'designation',
  'dob',
  'email',
  'first_name',
  'gender',
  'id',
  'id_file_url',
  'id_type',
  'last_name',
  'phone',
  'updated_at',
];
const REQUIRED_ON_UPDATE = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'dob',
  'gender',
  'designation',
  'id_type',
  'id_file_url',
  'address',
];

const newBvn = (): string => `22${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`;
const withoutBvn = (body: Record<string, unknown>) => {
  const { bvn: _bvn, ...rest } = body;
  return rest;
};
interface Member {
  id: string;
  email: string;
  bvn: string;
  created_at: string;
  updated_at: string;
  [field: string]: string;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const YEAR_MS = 365.25 * 24 * 3600 * 1000;

/** The stored team member, straight from the database. */
const memberRow = (t: Pick<TestApp, 'db'>, id: string) =>
  t.db.selectFrom('team_members').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

for (const dialect of DIALECTS) {
  describe(`team members [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let a: PartnerAt<'sandbox'>;
    let b: PartnerAt<'sandbox'>;
    before(async () => {
      a = await newPartner(suite, 'sandbox');
      b = await newPartner(suite, 'sandbox');
      await addRepresentative(suite.t, a.token);
      await addRepresentative(suite.t, b.token);
    });

    async function addMember(token: string, overrides: Record<string, unknown> = {}) {
      const response = await suite.t.api.post(TEAM, memberBody({ bvn: newBvn(), ...overrides }), { token });
      assert.equal(response.status, 201, response.text);
      return response.body.data as Member;
    }

    it('returns 409 REPRESENTATIVE_REQUIRED before a representative is on file', async () => {
      const { t, sink } = suite;
      const partner = await newPartner({ t, sink }, 'signed-in');
      const key = await createApiKey(t, partner.token, 'sandbox');
      assertError(
        await t.api.post(TEAM, memberBody(), { token: partner.token }),
        409,
        'REPRESENTATIVE_REQUIRED',
      );
      assertError(await t.api.post(TEAM, memberBody(), { token: key.key }), 409, 'REPRESENTATIVE_REQUIRED');
      const rows = await t.db
        .selectFrom('team_members')
        .select('id')
        .where('partner_id', '=', partner.companyId)
        .execute();
      assert.deepEqual(rows, []);

      await addRepresentative(t, partner.token);
      const added = await t.api.post(TEAM, memberBody(), { token: partner.token });
      assert.equal(added.status, 201, added.text);
    });

    it('adds a member: 201 with the record fields and the BVN masked; the whole BVN is in no response, log or column', async () => {
      const { t } = suite;
      const bvn = newBvn();
      const body = memberBody({
        bvn,
        first_name: '  Chidi  ',
        email: `  Chidi.Okafor.${randomInt(1e9)}@ACME.ng `,
      });
      const created = await t.api.post(TEAM, body, { token: a.token });
      assert.equal(created.status, 201, created.text);
      const member = created.body.data;
      assert.deepEqual(Object.keys(member).sort(), RECORD_FIELDS);
      assert.match(member.id, UUID);
      assert.equal(member.first_name, 'Chidi');
      assert.equal(member.last_name, 'Okafor');
      assert.equal(member.email, String(body['email']).trim().toLowerCase());
      assert.equal(member.phone, body['phone']);
      assert.equal(member.dob, body['dob']);
      assert.equal(member.gender, 'male');
      assert.equal(member.designation, 'compliance_officer');
      assert.equal(member.bvn, `*******${bvn.slice(-4)}`);
      assert.equal(member.id_type, 'drivers_license');
      assert.equal(member.id_file_url, body['id_file_url']);
      assert.equal(member.address, body['address']);
      assert.match(member.created_at, ISO_INSTANT);
      assert.equal(member.updated_at, member.created_at);

      const read = await t.api.get(memberUrl(member.id), { token: a.token });
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body.data, member);
      const listed = await t.api.get(`${TEAM}?limit=100`, { token: a.token });

      const row = await memberRow(t, member.id);
      assert.equal(row.partner_id, a.companyId);
      assert.equal(row.bvn_last4, bvn.slice(-4));
      assert.notEqual(row.bvn_encrypted, bvn);
      assert.notEqual(row.bvn_hash, bvn);
      for (const response of [created, read, listed])
        assert.ok(!response.text.includes(bvn), 'a response holds the BVN');
      assert.ok(!t.logs.some((line) => line.includes(bvn)), 'a log line holds the BVN');
      assert.deepEqual(await columnsContaining(suite, bvn), []);
    });

    it('keeps member e-mails unique within a partner, case-insensitively (422 errors.email), but not across partners', async () => {
      const { t } = suite;
      const email = `shared-${randomInt(1e9)}@acme.ng`;
      await addMember(a.token, { email });
      assertError(
        await t.api.post(TEAM, memberBody({ bvn: newBvn(), email: email.toUpperCase() }), { token: a.token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['email'] },
      );
      assertError(
        await t.api.post(TEAM, memberBody({ bvn: newBvn(), email }), { token: a.sandboxKey }),
        422,
        'VALIDATION_FAILED',
        { fields: ['email'] },
      );
      const rows = await t.db
        .selectFrom('team_members')
        .select('id')
        .where('partner_id', '=', a.companyId)
        .where('email', '=', email)
        .execute();
      assert.equal(rows.length, 1);

      const other = await addMember(b.token, { email });
      assert.equal(other.email, email);

      const second = await addMember(a.token);
      const body = withoutBvn(memberBody({ email: ` ${email.toUpperCase()} ` }));
      assertError(await t.api.put(memberUrl(second.id), body, { token: a.token }), 422, 'VALIDATION_FAILED', {
        fields: ['email'],
      });
      const unchanged = await t.api.get(memberUrl(second.id), { token: a.token });
      assert.equal(unchanged.body.data.email, second.email);
    });

    it('reads one member and lists them with cursor pagination (limit 1 and 2, to the end)', async () => {
      const { t, sink } = suite;
      const partner = await newPartner({ t, sink }, 'signed-in');
      await addRepresentative(t, partner.token);
      const ids: string[] = [];
      for (let index = 0; index < 3; index++)
        ids.push((await addMember(partner.token, { first_name: `M${index}` })).id);

      for (const [limit, pageCount] of [
        [1, 3],
        [2, 2],
        [3, 1],
        [100, 1],
      ] as const) {
        const pages = await allPages(t, TEAM, partner.token, limit);
        assert.equal(pages.length, pageCount, `limit ${limit}`);
        const seen = pages.flat().map((item) => item['id'] as string);
        assert.equal(new Set(seen).size, 3, `limit ${limit}: no member twice`);
        assert.deepEqual([...seen].sort(), [...ids].sort());
      }
      const first = await t.api.get(`${TEAM}?limit=1`, { token: partner.token });
      for (const item of first.body.data.items) assert.deepEqual(Object.keys(item).sort(), RECORD_FIELDS);

      const one = await t.api.get(memberUrl(ids[1]!), { token: partner.token });
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.data.first_name, 'M1');

      const token = partner.token;
      assertError(await t.api.get(`${TEAM}?cursor=bogus`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['cursor'],
      });
      assertError(
        await t.api.get(`${TEAM}?cursor=${Buffer.from('{"p":12}').toString('base64url')}`, { token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['cursor'] },
      );
      assertError(await t.api.get(`${TEAM}?limit=0`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
      assertError(await t.api.get(`${TEAM}?limit=101`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
      assertError(await t.api.get(`${TEAM}?limit=abc`, { token }), 422, 'VALIDATION_FAILED', {
        fields: ['limit'],
      });
    });

    it('updates every field with PUT (200), keeping id and created_at', async () => {
      const { t } = suite;
      const member = await addMember(a.token);
      t.clock.advance(5000);
      const changes = {
        first_name: 'Ngozi',
        last_name: 'Eze',
        email: `ngozi-${randomInt(1e9)}@acme.ng`,
        phone: '+2347015550000',
        dob: '1979-12-31',
        gender: 'female',
        designation: 'chief_financial_officer',
        id_type: 'international_passport',
        id_file_url: 'https://files.acme.ng/ids/ngozi.png',
        address: '1 Adeola Odeku, Victoria Island',
      };
      const updated = await t.api.put(memberUrl(member.id), changes, { token: a.token });
      assert.equal(updated.status, 200, updated.text);
      const data = updated.body.data;
      for (const [field, value] of Object.entries(changes)) assert.equal(data[field], value, field);
      assert.equal(data.id, member.id);
      assert.equal(data.bvn, member.bvn);
      assert.equal(data.created_at, member.created_at);
      assert.ok(Date.parse(data.updated_at) >= Date.parse(member.created_at) + 5000, data.updated_at);

      const read = await t.api.get(memberUrl(member.id), { token: a.token });
      assert.deepEqual(read.body.data, data);
      const row = await memberRow(t, member.id);
      for (const [field, value] of Object.entries(changes))
        assert.equal(row[field as keyof typeof row], value, field);
    });

    it('accepts the stored BVN on update and refuses another with 409 BVN_IMMUTABLE, changing nothing', async () => {
      const { t } = suite;
      const bvn = newBvn();
      const member = await addMember(a.token, { bvn });
      const same = await t.api.put(
        memberUrl(member.id),
        memberBody({ bvn, email: member.email, address: 'Same BVN Street' }),
        { token: a.token },
      );
      assert.equal(same.status, 200, same.text);
      assert.equal(same.body.data.address, 'Same BVN Street');
      assert.equal(same.body.data.bvn, `*******${bvn.slice(-4)}`);

      const before = await memberRow(t, member.id);
      const other = newBvn();
      assertError(
        await t.api.put(
          memberUrl(member.id),
          memberBody({ bvn: other, email: member.email, address: 'Changed' }),
          {
            token: a.token,
          },
        ),
        409,
        'BVN_IMMUTABLE',
      );
      const after = await memberRow(t, member.id);
      assert.deepEqual(after, before);
    });

    it('refuses a PUT missing any required field with 422 naming it', async () => {
      const { t } = suite;
      const member = await addMember(a.token);
      const before = await memberRow(t, member.id);
      const full = withoutBvn(memberBody({ email: member.email, address: 'Never saved' }));
      for (const field of REQUIRED_ON_UPDATE) {
        const { [field]: _removed, ...body } = full;
        assertError(
          await t.api.put(memberUrl(member.id), body, { token: a.token }),
          422,
          'VALIDATION_FAILED',
          { fields: [field] },
        );
        assertError(
          await t.api.put(memberUrl(member.id), { ...body, [field]: '   ' }, { token: a.token }),
          422,
          'VALIDATION_FAILED',
          { fields: [field] },
        );
      }
      const after = await memberRow(t, member.id);
      assert.deepEqual(after, before);
    });

    it('deletes a member (200), after which GET, PUT and DELETE answer 404', async () => {
      const { t } = suite;
      const member = await addMember(a.token);
      const removed = await t.api.delete(memberUrl(member.id), { token: a.token });
      assert.equal(removed.status, 200, removed.text);
      assert.equal(removed.body.data.id, member.id);
      assertError(await t.api.get(memberUrl(member.id), { token: a.token }), 404, 'NOT_FOUND');
      assertError(
        await t.api.put(memberUrl(member.id), withoutBvn(memberBody()), { token: a.token }),
        404,
        'NOT_FOUND',
      );
      assertError(await t.api.delete(memberUrl(member.id), { token: a.token }), 404, 'NOT_FOUND');
      const rows = await t.db.selectFrom('team_members').select('id').where('id', '=', member.id).execute();
      assert.deepEqual(rows, []);
      const listed = await t.api.get(`${TEAM}?limit=100`, { token: a.token });
      assert.ok(!listed.body.data.items.some((item: { id: string }) => item.id === member.id));

      // The e-mail is free again.
      const again = await t.api.post(TEAM, memberBody({ bvn: newBvn(), email: member.email }), {
        token: a.token,
      });
      assert.equal(again.status, 201, again.text);
    });

    it("answers 404 for another partner's member, an unknown id and a malformed id on GET, PUT and DELETE", async () => {
      const { t } = suite;
      const member = await addMember(a.token);
      const update = withoutBvn(memberBody({ first_name: 'Hijacked' }));
      for (const token of [b.token, b.sandboxKey]) {
        assertError(await t.api.get(memberUrl(member.id), { token }), 404, 'NOT_FOUND');
        assertError(await t.api.put(memberUrl(member.id), update, { token }), 404, 'NOT_FOUND');
        assertError(await t.api.delete(memberUrl(member.id), { token }), 404, 'NOT_FOUND');
      }
      for (const id of ['0190f0e4-7a2b-7c3d-8e4f-5a6b7c8d9e0f', 'not-a-uuid', '1', "1' or '1'='1"]) {
        const path = memberUrl(encodeURIComponent(id));
        assertError(await t.api.get(path, { token: a.token }), 404, 'NOT_FOUND');
        assertError(await t.api.put(path, update, { token: a.token }), 404, 'NOT_FOUND');
        assertError(await t.api.delete(path, { token: a.token }), 404, 'NOT_FOUND');
      }
      const still = await t.api.get(memberUrl(member.id), { token: a.token });
      assert.equal(still.status, 200);
      assert.deepEqual(still.body.data, member);
    });

    it('validates each field rule on create and update with 422 naming the field', async () => {
      const { t } = suite;
      const now = t.clock.now();
      const cases: Array<[string, unknown]> = [
        ['first_name', 'x'.repeat(101)],
        ['first_name', 42],
        ['last_name', 'y'.repeat(101)],
        ['email', 'not-an-email'],
        ['phone', '1'.repeat(21)],
        ['phone', 'call me'],
        ['phone', '0803 123 456'],
        ['bvn', '2212345678'],
        ['bvn', '221234567890'],
        ['bvn', '22abc456789'],
        ['bvn', 22123456789],
        ['dob', isoDate(now + 2 * 24 * 3600 * 1000)],
        ['dob', '2001-02-30'],
        ['dob', '1990-13-01'],
        ['dob', '01/06/1990'],
        ['dob', isoDate(now - 17 * YEAR_MS)],
        ['gender', 'other'],
        ['designation', 'ceo'],
        ['id_type', 'passport'],
        ['id_file_url', 'http://files.acme.ng/ids/chidi.pdf'],
        ['id_file_url', 'not a url'],
        ['id_file_url', 'ftp://files.acme.ng/id.pdf'],
      ];
      const countBefore = await t.db
        .selectFrom('team_members')
        .select('id')
        .where('partner_id', '=', a.companyId)
        .execute();
      for (const [field, value] of cases) {
        const response = await t.api.post(TEAM, memberBody({ bvn: newBvn(), [field]: value }), {
          token: a.token,
        });
        assertError(response, 422, 'VALIDATION_FAILED', { fields: [field] });
      }
      for (const field of [...REQUIRED_ON_UPDATE, 'bvn']) {
        const { [field]: _removed, ...body } = memberBody({ bvn: newBvn() });
        assertError(await t.api.post(TEAM, body, { token: a.token }), 422, 'VALIDATION_FAILED', {
          fields: [field],
        });
      }
      const countAfter = await t.db
        .selectFrom('team_members')
        .select('id')
        .where('partner_id', '=', a.companyId)
        .execute();
      assert.equal(countAfter.length, countBefore.length);

      const member = await addMember(a.token);
      for (const [field, value] of cases) {
        if (field === 'bvn') continue;
        const body = { ...withoutBvn(memberBody({ email: member.email })), [field]: value };
        assertError(
          await t.api.put(memberUrl(member.id), body, { token: a.token }),
          422,
          'VALIDATION_FAILED',
          { fields: [field] },
        );
      }
      const row = await t.api.get(memberUrl(member.id), { token: a.token });
      assert.deepEqual(row.body.data, member);

      // The limits themselves are allowed.
      const longest = await t.api.post(
        TEAM,
        memberBody({
          bvn: newBvn(),
          first_name: 'x'.repeat(100),
          last_name: 'y'.repeat(100),
          phone: '+234 (0)803 123 4567',
        }),
        { token: a.token },
      );
      assert.equal(longest.status, 201, longest.text);
    });

    it('works the same with an API key as with a session token', async () => {
      const { t } = suite;
      const created = await t.api.post(TEAM, memberBody({ bvn: newBvn() }), { token: a.sandboxKey });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id;
      const bySession = await t.api.get(memberUrl(id), { token: a.token });
      assert.deepEqual(bySession.body.data, created.body.data);
      const listed = await t.api.get(`${TEAM}?limit=100`, { token: a.sandboxKey });
      assert.ok(listed.body.data.items.some((item: { id: string }) => item.id === id));
      const updated = await t.api.put(
        memberUrl(id),
        withoutBvn(memberBody({ email: created.body.data.email, address: 'Via key' })),
        {
          token: a.sandboxKey,
        },
      );
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.data.address, 'Via key');
      const removed = await t.api.delete(memberUrl(id), { token: a.sandboxKey });
      assert.equal(removed.status, 200, removed.text);
      assertError(await t.api.get(memberUrl(id), { token: a.token }), 404, 'NOT_FOUND');
    });

    it('keeps members partner-wide: the same from sandbox and live sessions and keys', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'live');
      const fromLive = await t.api.post(TEAM, memberBody({ bvn: newBvn() }), { token: partner.liveKey });
      assert.equal(fromLive.status, 201, fromLive.text);
      const fromSandbox = await t.api.post(TEAM, memberBody({ bvn: newBvn() }), {
        token: partner.token,
      });
      assert.equal(fromSandbox.status, 201, fromSandbox.text);
      const ids = [fromLive.body.data.id, fromSandbox.body.data.id].sort();

      for (const token of [partner.token, partner.sandboxKey, partner.liveToken, partner.liveKey]) {
        const listed = await t.api.get(`${TEAM}?limit=100`, { token });
        assert.equal(listed.status, 200, listed.text);
        assert.deepEqual(listed.body.data.items.map((item: { id: string }) => item.id).sort(), ids);
        for (const id of ids) assert.equal((await t.api.get(memberUrl(id), { token })).status, 200);
      }
      const updated = await t.api.put(
        memberUrl(fromSandbox.body.data.id),
        withoutBvn(memberBody({ email: fromSandbox.body.data.email, address: 'Updated from live' })),
        { token: partner.liveToken },
      );
      assert.equal(updated.status, 200, updated.text);
      const seenInSandbox = await t.api.get(memberUrl(fromSandbox.body.data.id), {
        token: partner.sandboxKey,
      });
      assert.equal(seenInSandbox.body.data.address, 'Updated from live');
      const removed = await t.api.delete(memberUrl(fromLive.body.data.id), { token: partner.sandboxKey });
      assert.equal(removed.status, 200, removed.text);
      assertError(
        await t.api.get(memberUrl(fromLive.body.data.id), { token: partner.liveKey }),
        404,
        'NOT_FOUND',
      );
    });
  });
}
