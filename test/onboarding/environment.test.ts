import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { ENVIRONMENT, LOGIN } from '../support/paths.js';
import { auditActions } from '../support/records.js';

for (const dialect of DIALECTS) {
  describe(`environment switch [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    const switchTo = (token: string, environment: unknown) =>
      suite.t.api.put(ENVIRONMENT, { environment }, { token });

    it('answers 403 ONBOARDING_NOT_APPROVED to live before the partner is active, leaving the session in sandbox', async () => {
      const fresh = await newPartner(suite, 'signed-in');
      const submitted = await newPartner(suite, 'submitted');
      const rejected = await newPartner(suite, 'rejected');
      for (const partner of [fresh, submitted, rejected]) {
        assertError(await switchTo(partner.token, 'live'), 403, 'ONBOARDING_NOT_APPROVED');
        assert.equal((await profileOf(suite.t, partner.token)).environment, 'sandbox');
      }
    });

    it('always allows sandbox', async () => {
      const fresh = await newPartner(suite, 'signed-in');
      const submitted = await newPartner(suite, 'submitted');
      for (const partner of [fresh, submitted]) {
        const response = await switchTo(partner.token, 'sandbox');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.data, { environment: 'sandbox' });
      }
    });

    it('switches an active partner to live for this session only, and back to sandbox', async () => {
      const partner = await newPartner(suite, 'active');
      const live = await switchTo(partner.token, 'live');
      assert.equal(live.status, 200, live.text);
      assert.deepEqual(live.body.data, { environment: 'live' });
      assert.equal((await profileOf(suite.t, partner.token)).environment, 'live');

      const login = await suite.t.api.post(LOGIN, { email: partner.email, password: partner.password });
      assert.equal(login.status, 200, login.text);
      assert.equal(login.body.data.environment, 'sandbox', 'a new session starts in sandbox');
      const other = login.body.data.token as string;
      assert.equal(
        (await profileOf(suite.t, other)).environment,
        'sandbox',
        'the other session stays in sandbox',
      );
      assert.equal((await profileOf(suite.t, partner.token)).environment, 'live');

      const back = await switchTo(partner.token, 'sandbox');
      assert.equal(back.status, 200, back.text);
      assert.equal((await profileOf(suite.t, partner.token)).environment, 'sandbox');

      const switches = (await auditActions(suite.t, partner.companyId)).filter(
        (event) => event.action === 'session.environment_switched',
      );
      assert.deepEqual(switches.map((event) => JSON.parse(event.metadata ?? '{}').to).sort(), [
        'live',
        'sandbox',
      ]);
    });

    it('refuses an environment outside sandbox|live, or none, with 422 naming environment', async () => {
      const partner = await newPartner(suite, 'signed-in');
      for (const environment of ['production', 'LIVE', '', 1, null]) {
        assertError(await switchTo(partner.token, environment), 422, 'VALIDATION_FAILED', {
          fields: ['environment'],
        });
      }
      assertError(
        await suite.t.api.put(ENVIRONMENT, {}, { token: partner.token }),
        422,
        'VALIDATION_FAILED',
        { fields: ['environment'] },
      );
    });

    it('needs a session token', async () => {
      assertError(await suite.t.api.put(ENVIRONMENT, { environment: 'sandbox' }), 401, 'UNAUTHENTICATED');
    });
  });
}
