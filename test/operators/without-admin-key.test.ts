import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { AUDIT_EVENTS } from '../support/paths.js';
import {
  INVITATION_ACCEPT,
  INVITATION_LOOKUP,
  INVITATION_SECOND_FACTOR,
  INVITATIONS,
  ME_PASSWORD,
  ME_SESSIONS,
  OPERATORS,
  operatorUrl,
  PLAIN_COOKIE,
  SESSION,
  SESSION_LOGOUT,
  SESSION_PASSWORD,
  SESSION_SECOND_FACTOR,
  STRONG,
} from './operator-kit.js';

for (const dialect of DIALECTS) {
  describe(`operators without ADMIN_API_KEY [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { ADMIN_API_KEY: '' } });

    it('answers 404 NOT_FOUND on every operator path, with or without a cookie or bearer', async () => {
      const { t } = suite;
      const token = 'A'.repeat(43);
      const id = randomUUID();
      const requests: Array<[string, string, unknown?]> = [
        ['POST', SESSION_PASSWORD, { email: 'ngozi@operator.ng', password: STRONG }],
        ['POST', SESSION_SECOND_FACTOR, { challenge: 'x'.repeat(43), code: '123456' }],
        ['GET', SESSION],
        ['POST', SESSION_LOGOUT],
        ['POST', INVITATION_LOOKUP, { token }],
        [
          'POST',
          INVITATION_SECOND_FACTOR,
          { token, name: 'Ada', password: STRONG, password_confirmation: STRONG },
        ],
        ['POST', INVITATION_ACCEPT, { token, code: '123456' }],
        ['POST', ME_PASSWORD, { current_password: STRONG, password: STRONG, password_confirmation: STRONG }],
        ['GET', ME_SESSIONS],
        ['POST', INVITATIONS, { email: 'ngozi@operator.ng', role: 'admin' }],
        ['GET', INVITATIONS],
        ['GET', OPERATORS],
        ['POST', operatorUrl(id, 'deactivate')],
        ['POST', operatorUrl(id, 'reset-second-factor')],
        ['GET', `${AUDIT_EVENTS}?actor_type=operator&actor_id=${id}`],
      ];
      const cookieHeaders = {
        cookie: `${PLAIN_COOKIE}=${'B'.repeat(43)}`,
        'x-csrf-token': 'x'.repeat(43),
        origin: t.url,
      };
      for (const [method, path, body] of requests) {
        for (const headers of [{}, adminHeaders, cookieHeaders]) {
          const response = await t.api.request(method, path, { headers, ...(body ? { json: body } : {}) });
          assertError(response, 404, 'NOT_FOUND', {
            what: `${method} ${path} ${Object.keys(headers).join(',')}`,
          });
          assert.equal(response.headers.get('set-cookie'), null);
        }
      }
    });
  });
}
