import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { newPartner } from '../support/partners.js';
import { BUSINESS_INFO, LOGOUT } from '../support/paths.js';
import { sessionsOf } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`account journey [${dialect.name}]`, { skip: dialect.skip }, () => {
    const app = useApp(dialect.name);

    it('registers, verifies by e-mailed code, logs in, reads the profile and logs out', async () => {
      const { t, sink } = app;
      const partner = await newPartner({ t, sink }, 'signed-in');
      const profile = await t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(profile.status, 200);
      assert.equal(profile.body.data.company_id, partner.companyId);
      assert.equal(profile.body.data.environment, 'sandbox');
      const logout = await t.api.post(LOGOUT, undefined, { token: partner.token });
      assert.equal(logout.status, 200);
      const after = await t.api.get(BUSINESS_INFO, { token: partner.token });
      assert.equal(after.status, 401);
      assert.equal(after.body.error_code, 'UNAUTHENTICATED');
      const stored = await sessionsOf(t, partner.companyId);
      assert.equal(stored.length, 0);
    });
  });
}
