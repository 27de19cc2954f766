import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminPost, partnerRecord } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { listAll } from '../support/http.js';
import { profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { adminPartnerUrl, EVENTS } from '../support/paths.js';
import { columnsContaining } from '../support/records.js';
import { reinstate, statusAudits, WEBHOOK_ENV } from './suspension-kit.js';

/** A note no other row of the database can hold by chance, so finding it anywhere is a leak. */
const noteOf = (what: string) => `STR ${what} ${randomBytes(6).toString('hex')}: do not disclose.`;
const REASON = 'Your account is under review; our compliance team will contact you.';

/** Where an operator's internal note may be stored: the partner's row and the audit trail, nowhere else. */
const OPERATOR_ONLY = ['audit_events.metadata', 'partners.internal_note'];

for (const dialect of DIALECTS) {
  describe(`internal notes on operator decisions [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: WEBHOOK_ENV });

    /** Everything the partner can read about itself: its profile and every event of both environments. */
    async function partnerSees(token: string): Promise<string> {
      const profile = await profileOf(suite.t, token);
      const events = await listAll(suite.t, EVENTS, token);
      return JSON.stringify({ profile, events });
    }

    it('suspends with a reason the partner sees and a note only operators see: on the record and in the audit trail, in no other column, nor in anything the partner reads', async () => {
      const partner = await newPartner(suite, 'active');
      const note = noteOf('suspend');
      const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason: REASON,
        internal_note: note,
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.review_notes, REASON);
      assert.equal(response.body.data.internal_note, note);

      const record = await partnerRecord(suite.t, partner.companyId);
      assert.equal(record.internal_note, note);
      const audited = (await statusAudits(suite, partner.companyId)).at(-1)!;
      assert.equal(audited.metadata?.['to'], 'suspended');
      assert.equal(audited.metadata?.['reason'], REASON);
      assert.equal(audited.metadata?.['internal_note'], note);

      assert.deepEqual((await columnsContaining(suite, note)).sort(), OPERATOR_ONLY);
      const seen = await partnerSees(partner.token);
      assert.ok(seen.includes(REASON), 'the partner sees the reason');
      assert.ok(!seen.includes(note), 'the partner never sees the internal note');
      assert.ok(!seen.includes('internal_note'), 'nor a field that would hold it');
    });

    it('keeps the note off the partner for a rejection and a request for changes too', async () => {
      for (const action of ['reject', 'request-changes'] as const) {
        const partner = await newPartner(suite, 'submitted');
        const note = noteOf(action);
        const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, action), {
          reason: REASON,
          internal_note: note,
        });
        assert.equal(response.status, 200, `${action}: ${response.text}`);
        assert.equal((await partnerRecord(suite.t, partner.companyId)).internal_note, note, action);
        assert.deepEqual((await columnsContaining(suite, note)).sort(), OPERATOR_ONLY, action);
        const seen = await partnerSees(partner.token);
        assert.ok(seen.includes(REASON), `${action}: the partner sees the reason`);
        assert.ok(!seen.includes(note), `${action}: the partner never sees the internal note`);
      }
    });

    it('is optional: a decision without one leaves internal_note null and audits no internal_note', async () => {
      const partner = await newPartner(suite, 'active');
      const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason: REASON,
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.internal_note, null);
      const audited = (await statusAudits(suite, partner.companyId)).at(-1)!;
      assert.equal(audited.metadata?.['reason'], REASON);
      assert.equal('internal_note' in (audited.metadata ?? {}), false);
    });

    it('goes from the record with the decision it belonged to (reinstatement), and stays in the audit trail', async () => {
      const partner = await newPartner(suite, 'active');
      const note = noteOf('reinstate');
      const suspended = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason: REASON,
        internal_note: note,
      });
      assert.equal(suspended.status, 200, suspended.text);
      const reinstated = await reinstate(suite, partner.companyId);
      assert.equal(reinstated.status, 200, reinstated.text);
      assert.equal(reinstated.body.data.internal_note, null);
      assert.equal(reinstated.body.data.review_notes, null);
      const notes = (await statusAudits(suite, partner.companyId)).map(
        (audit) => audit.metadata?.['internal_note'],
      );
      assert.ok(notes.includes(note), 'the suspension audit keeps its note');
    });

    it('refuses a note that is not text or longer than 2,000 characters: 422 naming internal_note, nothing changed', async () => {
      const partner = await newPartner(suite, 'active');
      for (const internal_note of ['x'.repeat(2001), 42, { text: 'x' }]) {
        const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), {
          reason: REASON,
          internal_note,
        });
        assertError(response, 422, 'VALIDATION_FAILED');
        assert.match(response.text, /internal_note/);
      }
      assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'active');
    });
  });
}
