import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminPost } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT } from '../support/assertions.js';
import { uniqueEmail } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { ADMIN_PARTNERS } from '../support/paths.js';
import {
  accept,
  auditEvents,
  consoleGet,
  consolePost,
  cookieOf,
  INVITATIONS,
  linkToken,
  lookupInvitation,
  newOperator,
  nextStep,
  OPERATORS,
  operatorsList,
  operatorUrl,
  PUBLIC_URL,
  passwordStep,
  SESSION,
  SESSION_PASSWORD,
  SESSION_SECOND_FACTOR,
  STRONG,
  sessionFrom,
  signInOperator,
  startEnrolment,
  totp,
} from './operator-kit.js';

for (const dialect of DIALECTS) {
  describe(`operator management by admins [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { PUBLIC_URL } });

    it('invites from the console (201, the one-time link once); GET /admin/invitations lists it without the link', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const email = uniqueEmail('invitee');
      const response = await consolePost(t, admin.session, INVITATIONS, {
        email: email.toUpperCase(),
        role: 'reviewer',
      });
      assert.equal(response.status, 201, response.text);
      const invitation = response.body.data;
      assert.equal(invitation.email, email);
      assert.equal(invitation.purpose, 'invite');
      const token = linkToken(invitation.url);
      assert.ok(invitation.url.startsWith(PUBLIC_URL));

      const listed = await consoleGet(t, admin.session, `${INVITATIONS}?limit=100`);
      assert.equal(listed.status, 200, listed.text);
      const item = listed.body.data.items.find((candidate: { id: string }) => candidate.id === invitation.id);
      assert.deepEqual(Object.keys(item).sort(), [
        'created_at',
        'email',
        'expires_at',
        'id',
        'purpose',
        'role',
      ]);
      assert.equal(item.email, email);
      assert.equal(item.role, 'reviewer');
      assert.equal(item.expires_at, invitation.expires_at);
      assert.ok(!listed.text.includes(token), 'the link is never shown again');
      const audited = await auditEvents(t, { action: 'operator.invited', actor_id: admin.id });
      assert.equal(audited.length, 1);
      assert.deepEqual(audited[0]?.actor, {
        type: 'operator',
        id: admin.id,
        name: admin.name,
        email: admin.email,
      });
      assert.ok(!JSON.stringify(audited).includes(token));

      const secret = await startEnrolment(t, token, {
        name: 'Invitee',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.role, 'reviewer');
      const after = await consoleGet(t, admin.session, `${INVITATIONS}?limit=100`);
      assert.ok(!after.body.data.items.some((candidate: { id: string }) => candidate.id === invitation.id));
    });

    it('lists operators with role, status, second factor and last sign-in, never a secret', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const response = await consoleGet(t, admin.session, `${OPERATORS}?limit=100`);
      assert.equal(response.status, 200, response.text);
      const items = await listAll(t, OPERATORS, { cookie: cookieOf(admin.session) }, 2);
      const byId = new Map(items.map((item) => [item.id, item]));
      for (const operator of [admin, reviewer]) {
        const item = byId.get(operator.id);
        assert.deepEqual(Object.keys(item).sort(), [
          'created_at',
          'email',
          'id',
          'last_sign_in_at',
          'name',
          'role',
          'second_factor',
          'second_factor_locked_at',
          'status',
        ]);
        assert.equal(item.second_factor_locked_at, null);
        assert.equal(item.email, operator.email);
        assert.equal(item.name, operator.name);
        assert.equal(item.role, operator.role);
        assert.equal(item.status, 'active');
        assert.equal(item.second_factor, 'enrolled');
        assert.match(item.last_sign_in_at, ISO_INSTANT);
      }
      assert.equal(new Set(items.map((item) => item.id)).size, items.length, 'no operator twice');
      const text = JSON.stringify(items);
      for (const secret of [admin.secret, reviewer.secret, admin.password, reviewer.recoveryCodes[0]!]) {
        assert.ok(!text.includes(secret));
      }
    });

    it('deactivates an operator: its sessions stop at once (401) and password sign-in answers 403 saying deactivated', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const secondSession = await signInOperator(t, reviewer);
      nextStep(t);
      const pending = await passwordStep(t, reviewer);

      const response = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.id, reviewer.id);
      assert.equal(response.body.data.status, 'deactivated');

      for (const session of [reviewer.session, secondSession]) {
        assertError(await consoleGet(t, session, SESSION), 401, 'UNAUTHENTICATED');
        assertError(await consoleGet(t, session, ADMIN_PARTNERS), 401, 'UNAUTHENTICATED');
      }
      const finish = await t.api.post(SESSION_SECOND_FACTOR, {
        challenge: pending,
        code: totp(reviewer.secret, t.clock.now()),
      });
      assertError(finish, 403, 'FORBIDDEN', { what: 'a sign-in begun before the deactivation' });
      assert.equal(finish.headers.get('set-cookie'), null);

      const signIn = await t.api.post(SESSION_PASSWORD, {
        email: reviewer.email,
        password: reviewer.password,
      });
      assertError(signIn, 403, 'FORBIDDEN');
      assert.match(signIn.body.message, /deactivated/i);
      assertError(
        await t.api.post(SESSION_PASSWORD, { email: reviewer.email, password: `${reviewer.password}?` }),
        401,
        'INVALID_CREDENTIALS',
        { what: 'a wrong password says nothing of the account' },
      );

      const listed = (await operatorsList(t)).find((item) => item.id === reviewer.id);
      assert.equal(listed.status, 'deactivated');
      const audited = await auditEvents(t, { action: 'operator.deactivated', actor_id: admin.id });
      assert.equal(audited.length, 1);
      assert.deepEqual(audited[0]?.target, { type: 'operator', id: reviewer.id });
      assert.equal(audited[0]?.metadata?.['sessions_revoked'], 2);

      const again = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.status, 'deactivated');
      assertError(
        await consolePost(t, admin.session, operatorUrl(randomUUID(), 'deactivate')),
        404,
        'NOT_FOUND',
      );
      // The e-mail stays taken: a deactivated operator is not invited anew.
      assertError(
        await adminPost(t, INVITATIONS, { email: reviewer.email, role: 'reviewer' }),
        422,
        'VALIDATION_FAILED',
        {
          fields: ['email'],
        },
      );
    });

    it('refuses an admin deactivating itself (403 FORBIDDEN); it stays active', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const response = await consolePost(t, admin.session, operatorUrl(admin.id, 'deactivate'));
      assertError(response, 403, 'FORBIDDEN');
      assert.match(response.body.message, /yourself/i);
      assert.equal((await consoleGet(t, admin.session, SESSION)).status, 200);
      assert.equal((await operatorsList(t)).find((item) => item.id === admin.id).status, 'active');
    });

    it('resets a second factor: sessions end, sign-in points to the link, which enrols a new TOTP with the operator’s own password; old codes stop working', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const reset = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      assert.equal(reset.body.data.purpose, 'reset_second_factor');
      assert.equal(reset.body.data.email, reviewer.email);
      assert.equal(reset.body.data.role, 'reviewer');
      const token = linkToken(reset.body.data.url);

      assertError(await consoleGet(t, reviewer.session, SESSION), 401, 'UNAUTHENTICATED', {
        what: 'its session ends at once',
      });
      assert.equal(
        (await operatorsList(t)).find((item) => item.id === reviewer.id).second_factor,
        'reset_pending',
      );
      const signIn = await t.api.post(SESSION_PASSWORD, {
        email: reviewer.email,
        password: reviewer.password,
      });
      assertError(signIn, 403, 'FORBIDDEN');
      assert.match(signIn.body.message, /link/i);

      const opened = await lookupInvitation(t, token);
      assert.equal(opened.status, 200, opened.text);
      assert.equal(opened.body.data.purpose, 'reset_second_factor');
      assert.equal(opened.body.data.email, reviewer.email);
      const secret = await startEnrolment(t, token, { password: reviewer.password });
      assert.notEqual(secret, reviewer.secret);
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.deepEqual(accepted.body.data.operator, {
        id: reviewer.id,
        email: reviewer.email,
        name: reviewer.name,
        role: 'reviewer',
      });
      const newCodes = accepted.body.data.recovery_codes as string[];
      assert.equal(newCodes.length, 10);
      assert.ok(!newCodes.some((code) => reviewer.recoveryCodes.includes(code)));
      assert.equal((await consoleGet(t, sessionFrom(t, accepted), SESSION)).status, 200);
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND', {
        what: 'the reset link is used up',
      });

      // The password stays; the new authenticator signs in.
      const session = await signInOperator(t, { ...reviewer, secret });
      assert.equal((await consoleGet(t, session, SESSION)).body.data.operator.id, reviewer.id);
      // Neither an old recovery code nor the old authenticator does.
      assertError(
        await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, reviewer),
          code: reviewer.recoveryCodes[1],
        }),
        422,
        'OTP_INVALID',
        { what: 'an old recovery code' },
      );
      nextStep(t);
      const oldCode = totp(reviewer.secret, t.clock.now());
      if (![-1, 0, 1].some((step) => totp(secret, t.clock.now() + step * 30_000) === oldCode)) {
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, {
            challenge: await passwordStep(t, reviewer),
            code: oldCode,
          }),
          422,
          'OTP_INVALID',
          { what: 'the old authenticator' },
        );
      }
      assert.equal(
        (
          await t.api.post(SESSION_SECOND_FACTOR, {
            challenge: await passwordStep(t, reviewer),
            code: newCodes[0],
          })
        ).status,
        200,
        'a new recovery code works',
      );

      const resetAudit = await auditEvents(t, { action: 'operator.second_factor_reset', actor_id: admin.id });
      assert.equal(resetAudit.length, 1);
      assert.deepEqual(resetAudit[0]?.target, { type: 'operator', id: reviewer.id });
      const enrolled = await auditEvents(t, {
        action: 'operator.second_factor_enrolled',
        actor_id: reviewer.id,
      });
      assert.equal(enrolled.length, 1);
      assert.deepEqual(enrolled[0]?.actor, {
        type: 'operator',
        id: reviewer.id,
        name: reviewer.name,
        email: reviewer.email,
      });
    });

    it('voids an open reset link when the operator is deactivated', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const reset = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      const token = linkToken(reset.body.data.url);
      const secret = await startEnrolment(t, token, { password: reviewer.password });
      const deactivated = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(deactivated.status, 200, deactivated.text);
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND');
      const accepted = await accept(t, token, secret);
      assert.ok([403, 404].includes(accepted.status), accepted.text);
      assert.equal(accepted.headers.get('set-cookie'), null);
      assertError(
        await consolePost(t, admin.session, operatorUrl(reviewer.id, 'reset-second-factor')),
        403,
        'FORBIDDEN',
        { what: 'resetting a deactivated operator' },
      );
    });

    it('lets ADMIN_API_KEY manage operators too (automation), audited as api_key', async () => {
      const { t } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const reset = await adminPost(t, operatorUrl(reviewer.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      const deactivated = await adminPost(t, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(deactivated.status, 200, deactivated.text);
      const audited = await auditEvents(t, { actor_type: 'api_key', action: 'operator.deactivated' });
      const event = audited.find((candidate) => candidate.target?.id === reviewer.id);
      assert.deepEqual(event?.actor, { type: 'api_key', id: null, name: null, email: null });
    });
  });
}
