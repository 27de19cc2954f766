import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, approvePartner } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { completeOnboarding } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, BUSINESS_INFO, ENVIRONMENT, SUBMIT } from '../support/paths.js';

for (const dialect of DIALECTS) {
  describe(`onboarding journey [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name);

    it('goes from registration to live with the operator review in between', async () => {
      const { t, sink } = app;
      const partner = await newPartner({ t, sink }, 'signed-in');
      const early = await t.api.put(ENVIRONMENT, { environment: 'live' }, { token: partner.token });
      assert.equal(early.status, 403);
      assert.equal(early.body.error_code, 'ONBOARDING_NOT_APPROVED');

      const incomplete = await t.api.post(SUBMIT, undefined, {
        token: partner.token,
      });
      assert.equal(incomplete.status, 409);
      assert.equal(incomplete.body.error_code, 'ONBOARDING_INCOMPLETE');
      assert.deepEqual(incomplete.body.errors, { business_type: ['missing'], representative: ['missing'] });

      await completeOnboarding(t, partner.token);
      const ready = await t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.deepEqual(ready.body.data.document_checklist, {
        cac_certificate: 'uploaded',
        memart: 'uploaded',
        valid_id: 'uploaded',
      });
      assert.deepEqual(ready.body.data.requirements.currently_due, ['submit']);

      const submitted = await t.api.post(SUBMIT, undefined, {
        token: partner.token,
      });
      assert.equal(submitted.status, 200, submitted.text);
      assert.equal(submitted.body.data.onboarding_status, 'under_review');

      const queue = await t.api.get(`${ADMIN_PARTNERS}?onboarding_status=under_review`, {
        headers: adminHeaders,
      });
      assert.ok(
        queue.body.data.items.some((item: { company_id: number }) => item.company_id === partner.companyId),
      );

      await approvePartner(t, partner.companyId);
      const live = await t.api.put(ENVIRONMENT, { environment: 'live' }, { token: partner.token });
      assert.equal(live.status, 200, live.text);
      assert.equal(live.body.data.environment, 'live');
      const profile = await t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(profile.body.data.onboarding_status, 'active');
      assert.equal(profile.body.data.environment, 'live');
      assert.ok(!profile.text.includes('22123456789'), 'no whole BVN in the profile');

      const events = await t.db
        .selectFrom('outbox_events')
        .select('type')
        .where('partner_id', '=', partner.companyId)
        .execute();
      assert.ok(events.some((event) => event.type === 'onboarding.status_changed'));
      assert.ok(events.some((event) => event.type === 'document.reviewed'));
      assert.ok(!t.logs.some((line) => line.includes('22123456789')), 'no whole BVN in the logs');
    });
  });
}
