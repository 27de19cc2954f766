import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminPost } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody, registration } from '../support/factories.js';
import { postRepresentative, profileOf } from '../support/onboarding.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  adminPartnerUrl,
  BUSINESS_INFO,
  CREATE_ACCOUNT,
  creditUrl,
  LOGIN,
  lifecycleUrl,
  REGISTER,
} from '../support/paths.js';

/**
 * Unicode bidirectional controls reorder what a screen shows: "Acme \u202Edetimil deviorppa" reads
 * "Acme approved limited" in the operator's console. They, and control characters (a line break only
 * in free text), are refused in every text field of every body, by the validation platform.
 */

/** The embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069). */
const BIDI_CONTROLS = [
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];
const SPOOF = 'Acme \u202Edetimil deviorppa';

for (const dialect of DIALECTS) {
  describe(`bidirectional and control characters in text [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    let partner: PartnerAt<'sandbox'>;

    before(async () => {
      partner = await newPartner(suite, 'sandbox');
    });

    it('refuses every bidirectional control in a name with 422 naming the field, and registers nothing', async () => {
      for (const control of BIDI_CONTROLS) {
        const name = `Acme ${control}Payments`;
        const what = `U+${control.codePointAt(0)!.toString(16).toUpperCase()}`;
        const response = await suite.t.api.post(REGISTER, registration({ business_name: name }));
        assertError(response, 422, 'VALIDATION_FAILED', { fields: ['business_name'], what });
        assert.match(response.body.errors?.['business_name']?.[0] ?? '', /bidirectional/, response.text);
      }
      const spoofed = await suite.t.api.post(REGISTER, registration({ business_name: SPOOF }));
      assertError(spoofed, 422, 'VALIDATION_FAILED', { fields: ['business_name'] });
      const stored = await suite.t.db
        .selectFrom('partners')
        .select('id')
        .where('business_name', 'like', 'Acme %')
        .where('business_name', '<>', 'Acme Payments Ltd')
        .execute();
      assert.deepEqual(stored, []);
    });

    it('refuses them in JSON profile fields, multipart fields and free text, naming each field', async () => {
      const profile = await suite.t.api.put(
        BUSINESS_INFO,
        { legal_business_name: SPOOF, address: `12 Marina\u2067, Lagos` },
        { token: partner.token },
      );
      assertError(profile, 422, 'VALIDATION_FAILED', { fields: ['legal_business_name', 'address'] });
      assert.deepEqual(Object.keys(profile.body.errors ?? {}).sort(), ['address', 'legal_business_name']);

      const representative = await postRepresentative(suite.t, partner.token, {
        first_name: 'Ada\u202D',
        address: '\u2066Marina',
      });
      assertError(representative, 422, 'VALIDATION_FAILED', { fields: ['first_name', 'address'] });

      const account = await createAccount(suite.t, partner.sandboxKey);
      const credit = await suite.t.api.post(
        creditUrl(account.account_number),
        { amount: '1.00', narration: 'Refund \u202Ereversed' },
        { token: partner.sandboxKey },
      );
      assertError(credit, 422, 'VALIDATION_FAILED', { fields: ['narration'] });
      const customer = await suite.t.api.post(CREATE_ACCOUNT, customerBody({ last_name: 'Bakare\u202B' }), {
        token: partner.sandboxKey,
      });
      assertError(customer, 422, 'VALIDATION_FAILED', { fields: ['last_name'] });
      assert.equal((await profileOf(suite.t, partner.token)).legal_business_name, 'Acme Payments Ltd');
    });

    it('refuses control characters: a line break only in free text (addresses, narrations, reasons)', async () => {
      const { token } = partner;
      for (const [field, value] of [
        ['legal_business_name', 'Acme\nApproved Ltd'],
        ['legal_business_name', 'Acme\tPayments'],
        ['legal_business_name', 'Acme\u0085Payments'],
        ['legal_business_name', 'Acme\u001BPayments'],
        ['address', '12 Marina\tLagos'],
        ['address', '12 Marina\rLagos'],
        ['address', '12 Marina\u007FLagos'],
      ] as const) {
        const response = await suite.t.api.put(BUSINESS_INFO, { [field]: value }, { token });
        assertError(response, 422, 'VALIDATION_FAILED', { fields: [field], what: JSON.stringify(value) });
        assert.match(response.body.errors?.[field]?.[0] ?? '', /control characters/, response.text);
      }
      const multiLine = await suite.t.api.put(
        BUSINESS_INFO,
        { address: '12 Marina\nVictoria Island\r\nLagos', legal_business_name: '\tAcme Payments Limited\n' },
        { token },
      );
      assert.equal(multiLine.status, 200, multiLine.text);
      assert.equal(multiLine.body.data.address, '12 Marina\nVictoria Island\r\nLagos');
      assert.equal(multiLine.body.data.legal_business_name, 'Acme Payments Limited', 'trimmed ends are fine');

      const account = await createAccount(suite.t, partner.sandboxKey);
      const twoLines = await suite.t.api.post(
        creditUrl(account.account_number),
        { amount: '1.00', narration: 'line one\nline two' },
        { token: partner.sandboxKey },
      );
      assert.equal(twoLines.status, 201, twoLines.text);
      const tabbed = await suite.t.api.post(
        lifecycleUrl(account.account_number, 'deactivate'),
        { reason: 'customer\trequest' },
        { token: partner.sandboxKey },
      );
      assertError(tabbed, 422, 'VALIDATION_FAILED', { fields: ['reason'] });
      const reasoned = await suite.t.api.post(
        lifecycleUrl(account.account_number, 'deactivate'),
        { reason: 'Customer request.\nCall first.' },
        { token: partner.sandboxKey },
      );
      assert.equal(reasoned.status, 200, reasoned.text);
    });

    it("refuses them in the operator's reasons, which the partner reads", async () => {
      const submitted = await newPartner(suite, 'submitted');
      const response = await adminPost(suite.t, adminPartnerUrl(submitted.companyId, 'request-changes'), {
        reason: 'Your application is \u202Edevorppa',
      });
      assertError(response, 422, 'VALIDATION_FAILED', { fields: ['reason'] });
      const fine = await adminPost(suite.t, adminPartnerUrl(submitted.companyId, 'request-changes'), {
        reason: 'The CAC certificate is illegible.\nUpload a clearer scan.',
      });
      assert.equal(fine.status, 200, fine.text);
      assert.equal(fine.body.data.review_notes, 'The CAC certificate is illegible.\nUpload a clearer scan.');
    });

    it('accepts the implicit direction marks LRM, RLM and ALM, which reorder nothing outside their text', async () => {
      const name = 'Acme \u200Fشركة\u200E Payments\u061C Ltd';
      const response = await suite.t.api.post(REGISTER, registration({ business_name: name }));
      assert.equal(response.status, 201, response.text);
      const row = await suite.t.db
        .selectFrom('partners')
        .select('business_name')
        .where('id', '=', response.body.data.company_id)
        .executeTakeFirstOrThrow();
      assert.equal(row.business_name, name);
    });

    it('takes passwords exactly as sent: a bidirectional control is kept, a control character refused in a new one', async () => {
      const withBidi = 'Kobo\u202ELedger-Sunrise-42';
      const registered = await newPartner(suite, 'verified', {
        password: withBidi,
        password_confirmation: withBidi,
      });
      const login = await suite.t.api.post(LOGIN, { email: registered.email, password: withBidi });
      assert.equal(login.status, 200, login.text);
      assertError(
        await suite.t.api.post(LOGIN, { email: registered.email, password: 'KoboLedger-Sunrise-42' }),
        401,
        'INVALID_CREDENTIALS',
      );
      for (const password of ['Kobo-Ledger\tSunrise-42', 'Kobo-Ledger-Sunrise-42\n', 'Kobo\u0085Ledger-42']) {
        const response = await suite.t.api.post(
          REGISTER,
          registration({ password, password_confirmation: password }),
        );
        assertError(response, 422, 'VALIDATION_FAILED', {
          fields: ['password'],
          what: JSON.stringify(password),
        });
      }
      // Login compares whatever was sent: a control character is a wrong password there, not a 422.
      assertError(
        await suite.t.api.post(LOGIN, { email: registered.email, password: `${withBidi}\n` }),
        401,
        'INVALID_CREDENTIALS',
      );
    });
  });
}
