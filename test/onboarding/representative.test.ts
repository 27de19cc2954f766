import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminGet, partnerRecord } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { dateBefore, pinClock } from '../support/clock.js';
import {
  fileOfSize,
  form,
  JPEG_BYTES,
  MIB,
  PDF_BYTES,
  PNG_BYTES,
  representativeFields,
} from '../support/factories.js';
import { postRepresentative, profileOf, setBusinessType } from '../support/onboarding.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { AUDIT_EVENTS, adminPartnerUrl, BUSINESS_INFO, REPRESENTATIVE } from '../support/paths.js';
import {
  auditActions,
  currentDocuments,
  kycChecks,
  readStoredFile,
  storedFiles,
} from '../support/records.js';
import { ownerIdOf } from '../support/users.js';

const PASSING_BVN = '22123456789';
const FAILING_BVN = '12345678901';

for (const dialect of DIALECTS) {
  describe(`compliance representative [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    /** Only ever sent invalid requests: nothing of it is saved, so the validation tests share it. */
    let idle: PartnerAt<'signed-in'>;
    before(async () => {
      idle = await newPartner(suite, 'signed-in');
    });

    async function assertNothingSaved() {
      const profile = await profileOf(suite.t, idle.token);
      assert.equal(profile.representative, null, 'an invalid request saves no representative');
      assert.deepEqual(profile.documents, []);
    }

    describe('saving', () => {
      it('answers 201 on the first save and 200 afterwards, with only the names and the KYC result', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const first = await postRepresentative(suite.t, partner.token);
        assert.equal(first.status, 201, first.text);
        assert.equal(first.body.status, 'success');
        assert.deepEqual(Object.keys(first.body.data).sort(), ['kyc', 'representative']);
        assert.deepEqual(first.body.data.representative, { first_name: 'Ada', last_name: 'Obi' });
        assert.equal(first.body.data.kyc.ok, true);
        assert.equal(typeof first.body.data.kyc.message, 'string');
        assert.deepEqual(Object.keys(first.body.data.kyc).sort(), ['message', 'ok']);

        const second = await postRepresentative(suite.t, partner.token, { first_name: 'Adaeze' });
        assert.equal(second.status, 200, second.text);
        assert.deepEqual(second.body.data.representative, { first_name: 'Adaeze', last_name: 'Obi' });
        const rows = await suite.t.db
          .selectFrom('representatives')
          .select(['first_name'])
          .where('partner_id', '=', partner.companyId)
          .execute();
        assert.deepEqual(
          rows,
          [{ first_name: 'Adaeze' }],
          'one representative per partner, updated in place',
        );
      });

      it('shows first_name, last_name and a lower-cased email in the profile and nothing more', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const saved = await postRepresentative(suite.t, partner.token, { email: '  Ada.Obi@ACME.ng ' });
        assert.equal(saved.status, 201, saved.text);
        const profile = await profileOf(suite.t, partner.token);
        assert.deepEqual(profile.representative, {
          first_name: 'Ada',
          last_name: 'Obi',
          email: 'ada.obi@acme.ng',
        });
        assert.ok(!profile.requirements.currently_due.includes('representative'));
        assert.ok(!profile.requirements.currently_due.includes('representative.kyc'));
      });

      it('stores every field and ignores unknown ones such as kyc_status', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const saved = await postRepresentative(suite.t, partner.token, {
          bvn: FAILING_BVN,
          kyc_status: 'passed',
          bvn_verified_at: '1',
          designation: 'company_secretary',
          gender: 'male',
          id_type: 'voters_card',
        });
        assert.equal(saved.status, 201, saved.text);
        assert.equal(saved.body.data.kyc.ok, false);
        const row = await suite.t.db
          .selectFrom('representatives')
          .selectAll()
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        assert.equal(row.kyc_status, 'failed');
        assert.equal(row.bvn_verified_at, null);
        assert.equal(row.designation, 'company_secretary');
        assert.equal(row.gender, 'male');
        assert.equal(row.id_type, 'voters_card');
        assert.equal(row.dob, '1985-04-12');
        assert.equal(row.phone, '+2348031234567');
        assert.equal(row.address, '12 Marina, Lagos');
      });

      it('accepts each documented designation, gender and id_type', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const designations = [
          'director',
          'compliance_officer',
          'chief_executive_officer',
          'chief_financial_officer',
          'company_secretary',
        ];
        const idTypes = ['national_id', 'international_passport', 'drivers_license', 'voters_card'];
        for (const [index, designation] of designations.entries()) {
          const response = await postRepresentative(suite.t, partner.token, {
            designation,
            gender: index % 2 === 0 ? 'female' : 'male',
            id_type: idTypes[index % idTypes.length]!,
          });
          assert.ok([200, 201].includes(response.status), `${designation}: ${response.text}`);
        }
      });
    });

    describe('id_file and id_file_url', () => {
      it('refuses both id_file and id_file_url with 422 naming id_file', async () => {
        const response = await postRepresentative(
          suite.t,
          idle.token,
          { id_file_url: 'https://files.acme.ng/id.pdf' },
          { id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' } },
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['id_file'] });
        await assertNothingSaved();
      });

      it('refuses neither id_file nor id_file_url with 422 naming id_file', async () => {
        assertError(await postRepresentative(suite.t, idle.token, {}, {}), 422, 'VALIDATION_FAILED', {
          fields: ['id_file'],
        });
        await assertNothingSaved();
      });

      it('refuses a text file named .png and declared image/png: the bytes decide the type', async () => {
        const response = await postRepresentative(
          suite.t,
          idle.token,
          {},
          {
            id_file: {
              bytes: Buffer.from('just some text, not an image\n'),
              name: 'id.png',
              type: 'image/png',
            },
          },
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['id_file'] });
        await assertNothingSaved();
        assert.deepEqual(
          storedFiles(suite.t).filter((file) => file.endsWith('.partial')),
          [],
        );
      });

      it('accepts a PNG declared as application/pdf and records it as image/png', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const response = await postRepresentative(
          suite.t,
          partner.token,
          {},
          { id_file: { bytes: PNG_BYTES, name: 'id.pdf', type: 'application/pdf' } },
        );
        assert.equal(response.status, 201, response.text);
        const [document] = await currentDocuments(suite.t, partner.companyId, 'valid_id');
        assert.equal(document?.content_type, 'image/png');
      });

      it('accepts JPEG and PDF ID files', async () => {
        const partner = await newPartner(suite, 'signed-in');
        for (const [bytes, type] of [
          [JPEG_BYTES, 'image/jpeg'],
          [PDF_BYTES, 'application/pdf'],
        ] as const) {
          const response = await postRepresentative(
            suite.t,
            partner.token,
            {},
            { id_file: { bytes, name: 'id' } },
          );
          assert.ok([200, 201].includes(response.status), response.text);
          const [document] = await currentDocuments(suite.t, partner.companyId, 'valid_id');
          assert.equal(document?.content_type, type);
        }
      });

      it('accepts an ID file of exactly 5 MiB', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const response = await postRepresentative(
          suite.t,
          partner.token,
          {},
          { id_file: { bytes: fileOfSize(5 * MIB), name: 'big.png', type: 'image/png' } },
        );
        assert.equal(response.status, 201, response.text);
        const [document] = await currentDocuments(suite.t, partner.companyId, 'valid_id');
        assert.equal(document?.size_bytes, 5 * MIB);
      });

      it('refuses an ID file of 5 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE', async () => {
        const response = await postRepresentative(
          suite.t,
          idle.token,
          {},
          { id_file: { bytes: fileOfSize(5 * MIB + 1), name: 'big.png', type: 'image/png' } },
        );
        assertError(response, 413, 'PAYLOAD_TOO_LARGE');
        await assertNothingSaved();
      });

      it('refuses an empty ID file with 422 naming id_file', async () => {
        const response = await postRepresentative(
          suite.t,
          idle.token,
          {},
          { id_file: { bytes: Buffer.alloc(0), name: 'id.png', type: 'image/png' } },
        );
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['id_file'] });
      });

      it('refuses an id_file_url that is not https with 422 naming id_file_url', async () => {
        for (const url of [
          'http://files.acme.ng/id.pdf',
          'files.acme.ng/id.pdf',
          'ftp://files.acme.ng/id.pdf',
        ]) {
          const response = await postRepresentative(suite.t, idle.token, { id_file_url: url }, {});
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['id_file_url'] });
        }
        const tooLong = `https://files.acme.ng/${'a'.repeat(2048)}`;
        assertError(
          await postRepresentative(suite.t, idle.token, { id_file_url: tooLong }, {}),
          422,
          'VALIDATION_FAILED',
          { fields: ['id_file_url'] },
        );
        await assertNothingSaved();
      });

      it('keeps an https id_file_url as the valid_id document without a stored file', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const filesBefore = storedFiles(suite.t).length;
        const response = await postRepresentative(
          suite.t,
          partner.token,
          { id_file_url: 'https://files.acme.ng/ids/ada.pdf' },
          {},
        );
        assert.equal(response.status, 201, response.text);
        const [document] = await currentDocuments(suite.t, partner.companyId, 'valid_id');
        assert.equal(document?.file_url, 'https://files.acme.ng/ids/ada.pdf');
        assert.equal(document?.storage_key, null);
        assert.equal(storedFiles(suite.t).length, filesBefore, 'a URL is never fetched or stored');
      });

      it('stores the ID under a generated name, never the client file name', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const clientName = 'passport-of-ada-obi-secret.png';
        const response = await postRepresentative(
          suite.t,
          partner.token,
          {},
          { id_file: { bytes: PNG_BYTES, name: clientName, type: 'image/png' } },
        );
        assert.equal(response.status, 201, response.text);
        const [document] = await currentDocuments(suite.t, partner.companyId, 'valid_id');
        assert.ok(document?.storage_key);
        assert.ok(
          !JSON.stringify(document).includes('passport'),
          'the documents row keeps no client file name',
        );
        assert.ok(!Object.keys(document).some((column) => /name/i.test(column)), 'no file name column');
        const files = storedFiles(suite.t);
        assert.ok(files.length > 0);
        assert.ok(!files.some((file) => /passport|obi|secret|\.png/i.test(file)), files.join('\n'));
        assert.match(document.storage_key, /^[0-9a-f]{2}\/[0-9a-f-]{36}$/, 'a generated key');
        assert.ok(files.includes(document.storage_key), 'stored under its generated key');
        assert.deepEqual(readStoredFile(suite.t, document.storage_key), PNG_BYTES);
      });
    });

    describe('field rules', () => {
      it('refuses a dob in the future, not a real date, or in another format with 422 naming dob', async () => {
        const tomorrow = new Date(suite.t.clock.now() + 24 * 3600 * 1000).toISOString().slice(0, 10);
        for (const dob of [
          tomorrow,
          '2099-01-01',
          '2023-02-30',
          '1990-13-01',
          '1990-00-10',
          '12-04-1985',
          '1985/04/12',
        ]) {
          const response = await postRepresentative(suite.t, idle.token, { dob });
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['dob'] });
        }
        await assertNothingSaved();
      });

      it('refuses a representative under 18 or over 120 with 422 naming dob', async () => {
        for (const dob of [dateBefore(suite.t, 17), dateBefore(suite.t, 0, 1), dateBefore(suite.t, 121)]) {
          const response = await postRepresentative(suite.t, idle.token, { dob });
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['dob'] });
        }
      });

      it('accepts representatives aged 18 years and a day, and 119', async () => {
        const partner = await newPartner(suite, 'signed-in');
        for (const dob of [dateBefore(suite.t, 18, 1), dateBefore(suite.t, 119)]) {
          const response = await postRepresentative(suite.t, partner.token, { dob });
          assert.ok([200, 201].includes(response.status), `${dob}: ${response.text}`);
        }
      });

      it('refuses a representative who turns 18 tomorrow', async () => {
        const restore = pinClock(suite.t, '2024-02-29T12:00:00.000Z');
        try {
          const partner = await newPartner(suite, 'signed-in');
          const response = await postRepresentative(suite.t, partner.token, { dob: '2006-03-01' });
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['dob'] });
        } finally {
          restore();
        }
      });

      it('accepts a representative on their 18th birthday', async () => {
        const restore = pinClock(suite.t, '2026-03-01T06:00:00.000Z');
        try {
          const partner = await newPartner(suite, 'signed-in');
          const response = await postRepresentative(suite.t, partner.token, { dob: '2008-03-01' });
          assert.equal(response.status, 201, response.text);
        } finally {
          restore();
        }
      });

      it('accepts a representative aged 120 and a half (age 120 in completed years)', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const response = await postRepresentative(suite.t, partner.token, {
          dob: dateBefore(suite.t, 120, 180),
        });
        assert.equal(response.status, 201, response.text);
      });

      it('refuses a BVN that is not exactly 11 digits with 422 naming bvn, without echoing it', async () => {
        for (const bvn of [
          '2212345678',
          '221234567890',
          '2212345678a',
          'abcdefghijk',
          '221 2345 678',
          '+2212345678',
        ]) {
          const response = await postRepresentative(suite.t, idle.token, { bvn });
          assertError(response, 422, 'VALIDATION_FAILED', { fields: ['bvn'] });
          assert.ok(!response.text.includes(bvn), 'the refused BVN is not echoed');
        }
        await assertNothingSaved();
      });

      it('refuses gender, designation and id_type outside the enums, naming each', async () => {
        const response = await postRepresentative(suite.t, idle.token, {
          gender: 'other',
          designation: 'ceo',
          id_type: 'passport',
        });
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['gender', 'designation', 'id_type'] });
        await assertNothingSaved();
      });

      it('refuses first_name or last_name over 100 chars and phone over 20, and accepts the maxima', async () => {
        assertError(
          await postRepresentative(suite.t, idle.token, { first_name: 'A'.repeat(101) }),
          422,
          'VALIDATION_FAILED',
          { fields: ['first_name'] },
        );
        assertError(
          await postRepresentative(suite.t, idle.token, { last_name: 'O'.repeat(101) }),
          422,
          'VALIDATION_FAILED',
          { fields: ['last_name'] },
        );
        assertError(
          await postRepresentative(suite.t, idle.token, { phone: '+234 (0) 803 123 4567' }),
          422,
          'VALIDATION_FAILED',
          { fields: ['phone'] },
        );
        await assertNothingSaved();
        const partner = await newPartner(suite, 'signed-in');
        const longest = await postRepresentative(suite.t, partner.token, {
          first_name: 'A'.repeat(100),
          last_name: 'O'.repeat(100),
          phone: '+234 (0)803 123 4567',
        });
        assert.equal(longest.status, 201, longest.text);
      });

      it('names every missing or blank required field', async () => {
        const response = await suite.t.api.request('POST', REPRESENTATIVE, {
          token: idle.token,
          body: form({ first_name: '   ', id_file_url: 'https://files.acme.ng/id.pdf' }),
        });
        assertError(response, 422, 'VALIDATION_FAILED', {
          fields: [
            'first_name',
            'last_name',
            'email',
            'phone',
            'dob',
            'gender',
            'designation',
            'bvn',
            'id_type',
            'address',
          ],
        });
      });

      it('refuses an invalid email with 422 naming email', async () => {
        assertError(
          await postRepresentative(suite.t, idle.token, { email: 'not-an-email' }),
          422,
          'VALIDATION_FAILED',
          { fields: ['email'] },
        );
      });

      it('answers 415 UNSUPPORTED_MEDIA_TYPE to a JSON body', async () => {
        const response = await suite.t.api.post(
          REPRESENTATIVE,
          { ...representativeFields(), id_file_url: 'https://files.acme.ng/id.pdf' },
          { token: idle.token },
        );
        assertError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
        await assertNothingSaved();
      });

      it('answers 400 MALFORMED_REQUEST to a multipart Content-Type without a boundary', async () => {
        const response = await suite.t.api.request('POST', REPRESENTATIVE, {
          token: idle.token,
          headers: { 'content-type': 'multipart/form-data' },
          body: 'first_name=Ada',
        });
        assertError(response, 400, 'MALFORMED_REQUEST');
        await assertNothingSaved();
      });

      it('answers 400 MALFORMED_REQUEST to a body that is not multipart, or cut off before its closing boundary', async () => {
        for (const body of [
          'this is not multipart at all',
          '--XyZ\r\nContent-Disposition: form-data; name="first_name"\r\n\r\nAda',
        ]) {
          const response = await suite.t.api.request('POST', REPRESENTATIVE, {
            token: idle.token,
            headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
            body,
          });
          assertError(response, 400, 'MALFORMED_REQUEST');
        }
      });

      it('answers 401 UNAUTHENTICATED without a session token', async () => {
        const response = await suite.t.api.request('POST', REPRESENTATIVE, {
          body: form(representativeFields(), { id_file: { bytes: PNG_BYTES, name: 'id.png' } }),
        });
        assertError(response, 401, 'UNAUTHENTICATED');
      });
    });

    describe('sandbox KYC and the BVN', () => {
      it('passes a BVN starting with 22 and records a passed kyc_checks row', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const before = suite.t.clock.now();
        const response = await postRepresentative(suite.t, partner.token, { bvn: PASSING_BVN });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.data.kyc.ok, true);
        const checks = await kycChecks(suite.t, partner.companyId);
        assert.equal(checks.length, 1);
        assert.equal(checks[0]?.provider, 'sandbox');
        assert.equal(checks[0]?.outcome, 'passed');
        assert.equal(checks[0]?.subject, 'representative');
        assert.equal(checks[0]?.bvn_last4, '6789');
        assert.ok(
          Number(checks[0]?.created_at) >= before && Number(checks[0]?.created_at) <= suite.t.clock.now(),
        );
      });

      it('fails any other BVN with a not-found message and still saves the representative', async () => {
        const partner = await newPartner(suite, 'signed-in');
        await setBusinessType(suite.t, partner.token, 'limited_liability');
        const response = await postRepresentative(suite.t, partner.token, { bvn: FAILING_BVN });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.data.kyc.ok, false);
        assert.match(response.body.data.kyc.message, /not found/i);

        const profile = await profileOf(suite.t, partner.token);
        assert.deepEqual(profile.representative, {
          first_name: 'Ada',
          last_name: 'Obi',
          email: 'ada.obi@acme.ng',
        });
        assert.ok(profile.requirements.currently_due.includes('representative.kyc'));
        const error = profile.requirements.errors.find(
          (entry: { requirement: string }) => entry.requirement === 'representative.kyc',
        );
        assert.match(error?.reason ?? '', /not found/i);
        assert.equal(profile.document_checklist.valid_id, 'uploaded');

        const checks = await kycChecks(suite.t, partner.companyId);
        assert.deepEqual(
          checks.map((check) => [check.provider, check.outcome]),
          [['sandbox', 'failed']],
        );
      });

      it('lets the BVN be corrected while no check has passed', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const failed = await postRepresentative(suite.t, partner.token, { bvn: FAILING_BVN });
        assert.equal(failed.body.data.kyc.ok, false);
        const failedAgain = await postRepresentative(suite.t, partner.token, { bvn: '33333333333' });
        assert.equal(failedAgain.status, 200, failedAgain.text);
        assert.equal(failedAgain.body.data.kyc.ok, false);
        const corrected = await postRepresentative(suite.t, partner.token, { bvn: PASSING_BVN });
        assert.equal(corrected.status, 200, corrected.text);
        assert.equal(corrected.body.data.kyc.ok, true);

        const row = await suite.t.db
          .selectFrom('representatives')
          .selectAll()
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        assert.equal(row.bvn_last4, '6789');
        assert.equal(row.kyc_status, 'passed');
        assert.notEqual(row.bvn_verified_at, null);
        const profile = await profileOf(suite.t, partner.token);
        assert.ok(
          !profile.requirements.errors.some(
            (entry: { requirement: string }) => entry.requirement === 'representative.kyc',
          ),
        );
        assert.deepEqual(
          (await kycChecks(suite.t, partner.companyId)).map((check) => check.outcome),
          ['failed', 'failed', 'passed'],
        );
      });

      it('answers 409 BVN_IMMUTABLE to another BVN after a check passed, and accepts the same BVN', async () => {
        const partner = await newPartner(suite, 'signed-in');
        assert.equal((await postRepresentative(suite.t, partner.token, { bvn: PASSING_BVN })).status, 201);
        const sealed = await suite.t.db
          .selectFrom('representatives')
          .select(['bvn_encrypted', 'bvn_hash', 'bvn_last4'])
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();

        for (const bvn of ['22999999999', FAILING_BVN]) {
          const changed = await postRepresentative(suite.t, partner.token, { bvn, first_name: 'Changed' });
          assertError(changed, 409, 'BVN_IMMUTABLE');
        }
        const after = await suite.t.db
          .selectFrom('representatives')
          .select(['bvn_encrypted', 'bvn_hash', 'bvn_last4', 'first_name'])
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(after, { ...sealed, first_name: 'Ada' }, 'a refused change leaves the record alone');
        assert.equal(
          (await kycChecks(suite.t, partner.companyId)).length,
          1,
          'no check runs for a refused BVN',
        );

        const same = await postRepresentative(suite.t, partner.token, {
          bvn: PASSING_BVN,
          first_name: 'Adaeze',
        });
        assert.equal(same.status, 200, same.text);
        assert.deepEqual(same.body.data.representative, { first_name: 'Adaeze', last_name: 'Obi' });
        const record = await partnerRecord(suite.t, partner.companyId);
        assert.equal(record.representative.bvn_locked, true);
      });

      it('never shows the whole BVN: responses, admin record, audit trail, database and logs', async () => {
        const bvn = '22555016789';
        const partner = await newPartner(suite, 'signed-in');
        await setBusinessType(suite.t, partner.token, 'limited_liability');
        const saved = await postRepresentative(suite.t, partner.token, { bvn });
        assert.equal(saved.status, 201, saved.text);
        const again = await postRepresentative(suite.t, partner.token, { bvn });
        const profile = await suite.t.api.get(BUSINESS_INFO, {
          token: partner.token,
        });
        const record = await adminGet(suite.t, adminPartnerUrl(partner.companyId));
        const audit = await adminGet(suite.t, `${AUDIT_EVENTS}?company_id=${partner.companyId}&limit=100`);
        for (const response of [saved, again, profile, record, audit]) {
          assert.ok(!response.text.includes(bvn), `whole BVN in ${response.text}`);
        }
        assert.equal(record.body.data.representative.bvn, '*******6789');
        assert.ok(record.body.data.kyc_checks.length >= 2);
        for (const check of record.body.data.kyc_checks) assert.equal(check.bvn, '*******6789');

        const representative = await suite.t.db
          .selectFrom('representatives')
          .selectAll()
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        assert.ok(!representative.bvn_encrypted.includes(bvn));
        assert.ok(!Buffer.from(representative.bvn_encrypted, 'base64').toString('latin1').includes(bvn));
        assert.ok(!representative.bvn_hash.includes(bvn));
        assert.equal(representative.bvn_last4, '6789');
        const rows = [
          representative,
          ...(await kycChecks(suite.t, partner.companyId)),
          ...(await auditActions(suite.t, partner.companyId)),
          ...(await currentDocuments(suite.t, partner.companyId)),
          ...(await suite.t.db
            .selectFrom('outbox_events')
            .selectAll()
            .where('partner_id', '=', partner.companyId)
            .execute()),
        ];
        assert.ok(!JSON.stringify(rows).includes(bvn), 'no table keeps the whole BVN in clear');
        const audited = (await auditActions(suite.t, partner.companyId)).filter((event) =>
          event.action.startsWith('onboarding.representative'),
        );
        assert.equal(audited.length, 2);
        for (const event of audited) assert.equal(JSON.parse(event.metadata ?? '{}').bvn, '*******6789');
        assert.ok(!suite.t.logs.some((line) => line.includes(bvn)), 'no whole BVN in the logs');
        assert.ok(!suite.t.logs.some((line) => line.includes(PASSING_BVN)), 'no whole BVN in the logs');
      });

      it('audits the save and the KYC check with the request id and IP', async () => {
        const partner = await newPartner(suite, 'signed-in');
        const response = await suite.t.api.request('POST', REPRESENTATIVE, {
          token: partner.token,
          headers: { 'x-request-id': 'rep-save-audit-1' },
          body: form(representativeFields(), { id_file: { bytes: PNG_BYTES, name: 'id.png' } }),
        });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.headers.get('x-request-id'), 'rep-save-audit-1');
        await postRepresentative(suite.t, partner.token);
        const events = (await auditActions(suite.t, partner.companyId)).filter(
          (event) => event.action.startsWith('onboarding.representative') || event.action === 'kyc.checked',
        );
        // Events of one transaction share a millisecond, so they are compared as sets per request.
        const first = events.filter((event) => event.request_id === 'rep-save-audit-1');
        const second = events.filter((event) => event.request_id !== 'rep-save-audit-1');
        assert.deepEqual(first.map((event) => event.action).sort(), [
          'kyc.checked',
          'onboarding.representative_added',
        ]);
        assert.deepEqual(second.map((event) => event.action).sort(), [
          'kyc.checked',
          'onboarding.representative_updated',
        ]);
        const owner = await ownerIdOf(suite.t, partner.companyId);
        for (const event of first) {
          assert.equal(event.ip, '127.0.0.1');
          assert.equal(event.actor_type, 'user');
          assert.equal(event.actor_id, owner);
          assert.equal(event.target_type, 'representative');
        }
        const check = first.find((event) => event.action === 'kyc.checked');
        assert.equal(JSON.parse(check?.metadata ?? '{}').outcome, 'passed');
      });
    });

    describe('the ID as valid_id document', () => {
      it('makes the ID the valid_id document pending review, and a new save supersedes it', async () => {
        const partner = await newPartner(suite, 'signed-in');
        await setBusinessType(suite.t, partner.token, 'limited_liability');
        await postRepresentative(suite.t, partner.token);
        const first = await profileOf(suite.t, partner.token);
        assert.equal(first.documents.length, 1);
        assert.equal(first.documents[0].document_type, 'valid_id');
        assert.equal(first.documents[0].status, 'pending_review');
        assert.equal(first.document_checklist.valid_id, 'uploaded');
        assert.ok(first.requirements.pending_review.includes('documents.valid_id'));

        await postRepresentative(
          suite.t,
          partner.token,
          {},
          { id_file: { bytes: JPEG_BYTES, name: 'id.jpg' } },
        );
        const second = await profileOf(suite.t, partner.token);
        assert.equal(second.documents.length, 1, 'only the current valid_id is shown');
        assert.notEqual(second.documents[0].id, first.documents[0].id);
        assert.equal(second.documents[0].status, 'pending_review');

        const rows = await suite.t.db
          .selectFrom('documents')
          .selectAll()
          .where('partner_id', '=', partner.companyId)
          .where('document_type', '=', 'valid_id')
          .orderBy('uploaded_at')
          .orderBy('id')
          .execute();
        assert.equal(rows.length, 2, 'the superseded ID is kept');
        const old = rows.find((row) => row.id === first.documents[0].id);
        const current = rows.find((row) => row.id === second.documents[0].id);
        assert.notEqual(old?.superseded_at, null);
        assert.equal(current?.superseded_at, null);
        assert.equal(current?.content_type, 'image/jpeg');
        const representative = await suite.t.db
          .selectFrom('representatives')
          .select('id_document_id')
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        assert.equal(representative.id_document_id, current?.id);
      });

      it('answers 409 ONBOARDING_LOCKED while under_review and keeps the representative', async () => {
        const partner = await newPartner(suite, 'submitted');
        const response = await postRepresentative(suite.t, partner.token, { first_name: 'Locked' });
        assertError(response, 409, 'ONBOARDING_LOCKED');
        const profile = await profileOf(suite.t, partner.token);
        assert.equal(profile.representative.first_name, 'Ada');
        assert.equal((await currentDocuments(suite.t, partner.companyId, 'valid_id')).length, 1);
      });
    });
  });
}
