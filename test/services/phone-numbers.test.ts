import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody, memberBody, registration } from '../support/factories.js';
import { addRepresentative, postRepresentative, profileOf } from '../support/onboarding.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { accountUrl, BUSINESS_INFO, CREATE_ACCOUNT, memberUrl, REGISTER, TEAM } from '../support/paths.js';

/** Spellings people use, and the E.164 the API stores and returns (docs/decisions.md, "Phone numbers"). */
const ACCEPTED: Array<[string, string]> = [
  ['0803 123 4567', '+2348031234567'],
  ['08031234567', '+2348031234567'],
  ['0803-123-4567', '+2348031234567'],
  ['(0803) 123 4567', '+2348031234567'],
  ['234 803 123 4567', '+2348031234567'],
  ['+234 (0)803 123 4567', '+2348031234567'],
  ['+2349061234567', '+2349061234567'],
  ['0201 234 5678', '+2342012345678'],
  ['+44 20 7946 0958', '+442079460958'],
  ['0044 20 7946 0958', '+442079460958'],
];

/** Values that cannot be a phone number; each is 422 VALIDATION_FAILED on `phone`. */
const REFUSED: unknown[] = [
  '0803 123 456',
  '0803 123 45678',
  '0800 123 4567',
  '1234567',
  '8031234567',
  '+1234567',
  '+1234567890123456',
  '+234 803 123 4567 ext 9',
  'call me maybe',
  '(((---)))',
  `+${'1'.repeat(20)}`,
  2348031234567,
];

const PHONE_MESSAGE = /phone number/;

function assertPhoneRefused(response: Parameters<typeof assertError>[0], what: string): void {
  assertError(response, 422, 'VALIDATION_FAILED', { fields: ['phone'], what });
  const messages = response.body.errors?.['phone'] ?? [];
  assert.ok(
    messages.some((message) => PHONE_MESSAGE.test(message) || /must be a string/.test(message)),
    `a message that says what a phone number is: ${what}: ${response.text}`,
  );
}

for (const dialect of DIALECTS) {
  describe(`phone numbers in E.164 [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let partner: PartnerAt<'sandbox'>;
    before(async () => {
      partner = await newPartner(suite, 'sandbox');
      await addRepresentative(suite.t, partner.token);
    });

    it('opens an account for "0803 123 4567" with the customer phone +2348031234567, stored so', async () => {
      const account = await createAccount(suite.t, partner.sandboxKey, { phone: '0803 123 4567' });
      assert.equal(account.customer.phone, '+2348031234567');
      const read = await suite.t.api.get(accountUrl(account.account_number), { token: partner.sandboxKey });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.customer.phone, '+2348031234567');
      const row = await suite.t.db
        .selectFrom('virtual_accounts')
        .select('phone')
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.phone, '+2348031234567');
    });

    it('writes every usual spelling of a virtual-account customer phone in E.164', async () => {
      for (const [phone, e164] of ACCEPTED) {
        const account = await createAccount(suite.t, partner.sandboxKey, { phone });
        assert.equal(account.customer.phone, e164, phone);
      }
    });

    it('refuses a customer phone that cannot be one with 422 on phone, opening no account', async () => {
      const before = await suite.t.db.selectFrom('virtual_accounts').select('id').execute();
      for (const phone of REFUSED) {
        const response = await suite.t.api.post(CREATE_ACCOUNT, customerBody({ phone }), {
          token: partner.sandboxKey,
        });
        assertPhoneRefused(response, JSON.stringify(phone));
      }
      const after = await suite.t.db.selectFrom('virtual_accounts').select('id').execute();
      assert.equal(after.length, before.length);
    });

    it('stores the registration phone in E.164 and refuses one that cannot be a phone number', async () => {
      const registered = await newPartner(suite, 'signed-in', { phone: '0803 123 4567' });
      const row = await suite.t.db
        .selectFrom('partners')
        .select('phone')
        .where('id', '=', registered.companyId)
        .executeTakeFirstOrThrow();
      assert.equal(row.phone, '+2348031234567');
      assert.equal((await profileOf(suite.t, registered.token)).phone, '+2348031234567');
      for (const phone of ['0803 123 456', '123 4567', 'call me maybe']) {
        assertPhoneRefused(await suite.t.api.post(REGISTER, registration({ phone })), phone);
      }
    });

    it('corrects the business phone in E.164 before the first submission', async () => {
      const fresh = await newPartner(suite, 'signed-in');
      for (const [phone, e164] of ACCEPTED) {
        const response = await suite.t.api.put(BUSINESS_INFO, { phone }, { token: fresh.token });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.phone, e164, phone);
      }
      for (const phone of REFUSED) {
        assertPhoneRefused(
          await suite.t.api.put(BUSINESS_INFO, { phone }, { token: fresh.token }),
          JSON.stringify(phone),
        );
      }
      assert.equal((await profileOf(suite.t, fresh.token)).phone, '+442079460958');
    });

    it('stores the representative phone in E.164 from a multipart form, and refuses a wrong one', async () => {
      const fresh = await newPartner(suite, 'signed-in');
      const saved = await postRepresentative(suite.t, fresh.token, { phone: '0909 876 5432' });
      assert.equal(saved.status, 201, saved.text);
      const row = await suite.t.db
        .selectFrom('representatives')
        .select('phone')
        .where('partner_id', '=', fresh.companyId)
        .executeTakeFirstOrThrow();
      assert.equal(row.phone, '+2349098765432');
      assertPhoneRefused(await postRepresentative(suite.t, fresh.token, { phone: '0909 876 543' }), 'short');
      const kept = await suite.t.db
        .selectFrom('representatives')
        .select('phone')
        .where('partner_id', '=', fresh.companyId)
        .executeTakeFirstOrThrow();
      assert.equal(kept.phone, '+2349098765432');
    });

    it('adds and updates team members with their phone in E.164, and refuses one that cannot be a phone', async () => {
      const member = memberBody({ phone: '0802 000 0000' });
      const created = await suite.t.api.post(TEAM, member, { token: partner.token });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.phone, '+2348020000000');
      const id: string = created.body.data.id;
      for (const [phone, e164] of ACCEPTED) {
        const updated = await suite.t.api.put(memberUrl(id), { ...member, phone }, { token: partner.token });
        assert.equal(updated.status, 200, updated.text);
        assert.equal(updated.body.data.phone, e164, phone);
      }
      for (const phone of REFUSED) {
        assertPhoneRefused(
          await suite.t.api.put(memberUrl(id), { ...member, phone }, { token: partner.token }),
          `update ${JSON.stringify(phone)}`,
        );
        assertPhoneRefused(
          await suite.t.api.post(TEAM, memberBody({ phone }), { token: partner.token }),
          `create ${JSON.stringify(phone)}`,
        );
      }
      const row = await suite.t.db
        .selectFrom('team_members')
        .select('phone')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.phone, '+442079460958');
    });
  });
}
