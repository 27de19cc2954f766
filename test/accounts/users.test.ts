import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminGet } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, UUID } from '../support/assertions.js';
import { parseMail } from '../support/mime.js';
import { createApiKey, newPartner } from '../support/partners.js';
import {
  ACCEPT_INVITATION,
  API_KEYS,
  AUDIT_EVENTS,
  FORGOT_PASSWORD,
  INVITATIONS,
  invitationUrl,
  LOGIN,
  PREVIEW_INVITATION,
  RESET_PASSWORD,
  SESSION,
  TEAM,
  USERS,
  USERS_ME,
  userUrl,
  VIRTUAL_ACCOUNTS,
} from '../support/paths.js';
import { addUser, invitationToken, invite, newAddress, PASSWORD } from '../support/users.js';

const HOUR = 60 * 60 * 1000;
const acceptBody = (token: string, name = 'Bola Ade') => ({
  token,
  name,
  password: PASSWORD,
  password_confirmation: PASSWORD,
});

for (const dialect of DIALECTS) {
  describe(`dashboard users and invitations [${dialect.name}]`, { skip: dialect.skip }, () => {
    const ctx = useApp(dialect.name);

    it('invites by e-mail; the link is previewed, accepted (a session) and the new user logs in with their own e-mail', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress('bola');
      const invitation = await invite(ctx.t, owner.token, email, 'developer');
      assert.match(invitation.id, UUID);
      assert.equal(invitation.status, 'pending');

      const mail = parseMail((await ctx.sink.waitForMail(email)).raw);
      assert.ok(
        mail.html?.includes('/dashboard/accept-invitation#token='),
        'the HTML body holds the link too',
      );
      assert.ok(mail.text?.includes('developer'));
      const token = await invitationToken(ctx.sink, email);
      // Only the token's hash is stored.
      const stored = await ctx.t.db
        .selectFrom('partner_invitations')
        .selectAll()
        .where('email', '=', email)
        .execute();
      assert.equal(stored.length, 1);
      assert.notEqual(stored[0]!.token_hash, token);

      const preview = await ctx.t.api.post(PREVIEW_INVITATION, { token });
      assert.equal(preview.status, 200, preview.text);
      assert.equal(preview.body.data.email, email);
      assert.equal(preview.body.data.role, 'developer');
      assert.equal(typeof preview.body.data.business_name, 'string');

      const accepted = await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token));
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.data.token_type, 'Bearer');
      assert.equal(accepted.body.data.environment, 'sandbox');

      const session = await ctx.t.api.get(SESSION, { token: accepted.body.data.token as string });
      assert.equal(session.status, 200, session.text);
      assert.equal(session.body.data.company_id, owner.companyId);
      const user = session.body.data.user as Record<string, unknown>;
      assert.equal(user['email'], email);
      assert.equal(user['name'], 'Bola Ade');
      assert.equal(user['role'], 'developer');
      assert.deepEqual(session.body.data.permissions, ['read', 'keys', 'webhooks', 'money']);

      const login = await ctx.t.api.post(LOGIN, { email, password: PASSWORD });
      assert.equal(login.status, 200, login.text);

      const list = await ctx.t.api.get(USERS, { token: owner.token });
      assert.equal(list.status, 200, list.text);
      const users = list.body.data as unknown as Array<Record<string, unknown>>;
      assert.equal(users.length, 2);
      assert.equal(users[0]!['role'], 'owner');
      assert.equal(users[0]!['is_you'], true);
      assert.equal(users[0]!['invited_by'], null);
      assert.equal(users[1]!['email'], email);
      assert.equal(users[1]!['is_you'], false);
      assert.equal((users[1]!['invited_by'] as { id: string }).id, users[0]!['id']);
      assert.notEqual(users[1]!['last_login_at'], null);

      // Used: a second accept and a preview are 404.
      assertError(await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token)), 404, 'NOT_FOUND');
      assertError(await ctx.t.api.post(PREVIEW_INVITATION, { token }), 404, 'NOT_FOUND');
      const pending = await ctx.t.api.get(INVITATIONS, { token: owner.token });
      assert.equal((pending.body.data as unknown as unknown[]).length, 0);
    });

    it('accepts with session=cookie as login does: the cookie and the anti-forgery token, no bearer token', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      await invite(ctx.t, owner.token, email, 'viewer');
      const token = await invitationToken(ctx.sink, email);
      const foreign = await ctx.t.api.post(
        ACCEPT_INVITATION,
        { ...acceptBody(token), session: 'cookie' },
        { headers: { origin: 'https://evil.example' } },
      );
      assertError(foreign, 403, 'CSRF_REJECTED');
      const accepted = await ctx.t.api.post(
        ACCEPT_INVITATION,
        { ...acceptBody(token), session: 'cookie' },
        { headers: { origin: ctx.t.url } },
      );
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.data.token, null);
      assert.equal(accepted.body.data.token_type, 'Cookie');
      assert.equal(typeof accepted.body.data.csrf_token, 'string');
      const cookie = accepted.headers.get('set-cookie') ?? '';
      assert.match(cookie, /^baas_dashboard=[^;]+;.*HttpOnly/i);
      const session = await ctx.t.api.get(SESSION, { headers: { cookie: cookie.split(';')[0]! } });
      assert.equal(session.status, 200, session.text);
      assert.equal((session.body.data.user as Record<string, unknown>)['email'], email);
    });

    it('refuses a password that registration refuses, without using the link', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      await invite(ctx.t, owner.token, email, 'viewer');
      const token = await invitationToken(ctx.sink, email);
      const weak = await ctx.t.api.post(ACCEPT_INVITATION, {
        ...acceptBody(token),
        password: 'short',
        password_confirmation: 'short',
      });
      assertError(weak, 422, 'VALIDATION_FAILED');
      const ok = await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token));
      assert.equal(ok.status, 200, ok.text);
    });

    it('resend: a new link in a new e-mail, the old one stops working', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      const invitation = await invite(ctx.t, owner.token, email, 'finance');
      const first = await invitationToken(ctx.sink, email);
      const resent = await ctx.t.api.post(`${invitationUrl(invitation.id)}/resend`, undefined, {
        token: owner.token,
      });
      assert.equal(resent.status, 200, resent.text);
      const second = await invitationToken(ctx.sink, email, 2);
      assert.notEqual(first, second);
      assertError(await ctx.t.api.post(PREVIEW_INVITATION, { token: first }), 404, 'NOT_FOUND');
      assertError(await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(first)), 404, 'NOT_FOUND');
      assert.equal((await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(second))).status, 200);
      assertError(
        await ctx.t.api.post(`${invitationUrl(invitation.id)}/resend`, undefined, { token: owner.token }),
        409,
        'INVITATION_NOT_PENDING',
      );
    });

    it('a new invitation of the same address replaces the pending one', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      await invite(ctx.t, owner.token, email, 'viewer');
      const first = await invitationToken(ctx.sink, email);
      await invite(ctx.t, owner.token, email, 'finance');
      const second = await invitationToken(ctx.sink, email, 2);
      assertError(await ctx.t.api.post(PREVIEW_INVITATION, { token: first }), 404, 'NOT_FOUND');
      const preview = await ctx.t.api.post(PREVIEW_INVITATION, { token: second });
      assert.equal(preview.body.data.role, 'finance');
      const pending = await ctx.t.api.get(INVITATIONS, { token: owner.token });
      assert.equal((pending.body.data as unknown as unknown[]).length, 1);
    });

    it('revoke: the link stops working; revoking again answers the same', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      const invitation = await invite(ctx.t, owner.token, email, 'viewer');
      const token = await invitationToken(ctx.sink, email);
      const revoked = await ctx.t.api.delete(invitationUrl(invitation.id), { token: owner.token });
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.body.data.status, 'revoked');
      assertError(await ctx.t.api.post(PREVIEW_INVITATION, { token }), 404, 'NOT_FOUND');
      assertError(await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token)), 404, 'NOT_FOUND');
      assert.equal(
        (await ctx.t.api.delete(invitationUrl(invitation.id), { token: owner.token })).status,
        200,
      );
      // Another business's invitation is not found.
      const other = await newPartner(ctx, 'signed-in');
      assertError(
        await ctx.t.api.delete(invitationUrl(invitation.id), { token: other.token }),
        404,
        'NOT_FOUND',
      );
    });

    it('an expired link is 410 INVITATION_EXPIRED (preview and accept); a resend revives it', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      const invitation = await invite(ctx.t, owner.token, email, 'viewer');
      const token = await invitationToken(ctx.sink, email);
      ctx.t.clock.advance(72 * HOUR + 1000);
      try {
        assertError(await ctx.t.api.post(PREVIEW_INVITATION, { token }), 410, 'INVITATION_EXPIRED');
        assertError(await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token)), 410, 'INVITATION_EXPIRED');
        const owner2 = await ctx.t.api.post(LOGIN, { email: owner.email, password: owner.password });
        const ownerToken = owner2.body.data.token as string;
        const resent = await ctx.t.api.post(`${invitationUrl(invitation.id)}/resend`, undefined, {
          token: ownerToken,
        });
        assert.equal(resent.status, 200, resent.text);
        const fresh = await invitationToken(ctx.sink, email, 2);
        assert.equal((await ctx.t.api.post(ACCEPT_INVITATION, acceptBody(fresh))).status, 200);
      } finally {
        ctx.t.clock.advance(-(72 * HOUR + 1000));
      }
    });

    it('of two racing accepts of one link, exactly one wins; the other is 404', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const email = newAddress();
      await invite(ctx.t, owner.token, email, 'viewer');
      const token = await invitationToken(ctx.sink, email);
      const answers = await Promise.all([
        ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token, 'First')),
        ctx.t.api.post(ACCEPT_INVITATION, acceptBody(token, 'Second')),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [200, 404], answers.map((answer) => answer.text).join('\n'));
      const users = await ctx.t.db
        .selectFrom('partner_users')
        .select('id')
        .where('email', '=', email)
        .execute();
      assert.equal(users.length, 1);
    });

    it('an address that is already a user (of any business) cannot be invited: 409 USER_EXISTS', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const other = await newPartner(ctx, 'signed-in');
      assertError(
        await ctx.t.api.post(INVITATIONS, { email: other.email, role: 'viewer' }, { token: owner.token }),
        409,
        'USER_EXISTS',
      );
    });

    it('a role change applies on the next request; the permissions follow', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const viewer = await addUser(ctx, owner.token, 'viewer');
      assertError(
        await ctx.t.api.post(API_KEYS, { name: 'k', environment: 'sandbox' }, { token: viewer.token }),
        403,
        'FORBIDDEN',
      );
      const changed = await ctx.t.api.patch(
        userUrl(viewer.id),
        { role: 'developer' },
        { token: owner.token },
      );
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.role, 'developer');
      const me = await ctx.t.api.get(USERS_ME, { token: viewer.token });
      assert.deepEqual(me.body.data.permissions, ['read', 'keys', 'webhooks', 'money']);
      assert.equal(
        (await ctx.t.api.post(API_KEYS, { name: 'k', environment: 'sandbox' }, { token: viewer.token }))
          .status,
        201,
      );
      // A developer may not change roles.
      assertError(
        await ctx.t.api.patch(userUrl(viewer.id), { role: 'admin' }, { token: viewer.token }),
        403,
        'FORBIDDEN',
      );
    });

    it('the 403 names the role and what it lacks', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const finance = await addUser(ctx, owner.token, 'finance');
      const refused = await ctx.t.api.post(
        API_KEYS,
        { name: 'k', environment: 'sandbox' },
        { token: finance.token },
      );
      assertError(refused, 403, 'FORBIDDEN');
      assert.match(String(refused.body.message), /finance/);
      assert.match(String(refused.body.message), /API keys/);
    });

    it('removal ends the user’s sessions at once; their API keys keep working; the audit trail names them', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const developer = await addUser(ctx, owner.token, 'developer');
      const key = await createApiKey(ctx.t, developer.token, 'sandbox');
      const keys = await ctx.t.api.get(API_KEYS, { token: owner.token });
      const listed = (keys.body.data as { items: Array<Record<string, unknown>> }).items.find(
        (k) => k['id'] === key.id,
      );
      assert.deepEqual(listed?.['created_by'], { id: developer.id, name: developer.name });

      const removed = await ctx.t.api.delete(userUrl(developer.id), { token: owner.token });
      assert.equal(removed.status, 200, removed.text);
      assertError(await ctx.t.api.get(USERS_ME, { token: developer.token }), 401, 'UNAUTHENTICATED');
      assertError(
        await ctx.t.api.post(LOGIN, { email: developer.email, password: developer.password }),
        401,
        'INVALID_CREDENTIALS',
      );
      const byKey = await ctx.t.api.get(VIRTUAL_ACCOUNTS, { token: key.key });
      assert.equal(byKey.status, 200, byKey.text);
      const users = await ctx.t.api.get(USERS, { token: owner.token });
      assert.equal((users.body.data as unknown as unknown[]).length, 1);

      const keysAfter = await ctx.t.api.get(API_KEYS, { token: owner.token });
      const after = (keysAfter.body.data as { items: Array<Record<string, unknown>> }).items.find(
        (k) => k['id'] === key.id,
      );
      assert.deepEqual(after?.['created_by'], { id: developer.id, name: developer.name });

      const audit = await adminGet(
        ctx.t,
        `${AUDIT_EVENTS}?company_id=${owner.companyId}&actor_type=user&action=api_key.created`,
      );
      assert.equal(audit.status, 200, audit.text);
      const events = (audit.body.data as { items: Array<{ actor: Record<string, unknown> }> }).items;
      assert.equal(events.length, 1);
      assert.equal(events[0]!.actor['id'], developer.id);
      assert.equal(events[0]!.actor['name'], developer.name);
      const removal = await adminGet(
        ctx.t,
        `${AUDIT_EVENTS}?company_id=${owner.companyId}&action=user.removed`,
      );
      const removalEvents = (
        removal.body.data as {
          items: Array<{ actor: Record<string, unknown>; target: Record<string, unknown> }>;
        }
      ).items;
      assert.equal(removalEvents.length, 1);
      assert.equal(removalEvents[0]!.actor['type'], 'user');
      assert.equal(removalEvents[0]!.target['id'], developer.id);
    });

    it('LAST_OWNER: the only owner can neither leave the role nor be removed', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const me = await ctx.t.api.get(USERS_ME, { token: owner.token });
      const ownerId = me.body.data.id as string;
      assertError(
        await ctx.t.api.patch(userUrl(ownerId), { role: 'admin' }, { token: owner.token }),
        409,
        'LAST_OWNER',
      );
      assertError(await ctx.t.api.delete(userUrl(ownerId), { token: owner.token }), 409, 'LAST_OWNER');
      // With a second owner, the first may step down.
      const second = await addUser(ctx, owner.token, 'owner');
      const stepped = await ctx.t.api.patch(userUrl(ownerId), { role: 'admin' }, { token: owner.token });
      assert.equal(stepped.status, 200, stepped.text);
      assertError(await ctx.t.api.delete(userUrl(second.id), { token: second.token }), 409, 'LAST_OWNER');
    });

    it('LAST_OWNER under races: two owners removing each other at once, only one succeeds', async () => {
      for (let round = 0; round < 3; round++) {
        const owner = await newPartner(ctx, 'signed-in');
        const ownerId = (await ctx.t.api.get(USERS_ME, { token: owner.token })).body.data.id as string;
        const second = await addUser(ctx, owner.token, 'owner');
        const answers = await Promise.all([
          ctx.t.api.delete(userUrl(second.id), { token: owner.token }),
          ctx.t.api.delete(userUrl(ownerId), { token: second.token }),
        ]);
        const statuses = answers.map((answer) => answer.status);
        // One removal wins; the other is LAST_OWNER, or 401 if its caller was the one removed first.
        assert.equal(
          statuses.filter((status) => status === 200).length,
          1,
          answers.map((a) => a.text).join('\n'),
        );
        const owners = await ctx.t.db
          .selectFrom('partner_users')
          .select('id')
          .where('partner_id', '=', owner.companyId)
          .where('role', '=', 'owner')
          .where('removed_at', 'is', null)
          .execute();
        assert.equal(owners.length, 1);
      }
    });

    it('LAST_OWNER under races: two owners demoting themselves at once, only one succeeds', async () => {
      for (let round = 0; round < 3; round++) {
        const owner = await newPartner(ctx, 'signed-in');
        const ownerId = (await ctx.t.api.get(USERS_ME, { token: owner.token })).body.data.id as string;
        const second = await addUser(ctx, owner.token, 'owner');
        const answers = await Promise.all([
          ctx.t.api.patch(userUrl(ownerId), { role: 'admin' }, { token: owner.token }),
          ctx.t.api.patch(userUrl(second.id), { role: 'admin' }, { token: second.token }),
        ]);
        const statuses = answers.map((answer) => answer.status).sort();
        assert.deepEqual(statuses, [200, 409], answers.map((a) => a.text).join('\n'));
      }
    });

    it('an admin cannot invite, make, change or remove an owner', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const ownerId = (await ctx.t.api.get(USERS_ME, { token: owner.token })).body.data.id as string;
      const admin = await addUser(ctx, owner.token, 'admin');
      const viewer = await addUser(ctx, owner.token, 'viewer');
      assertError(
        await ctx.t.api.patch(userUrl(ownerId), { role: 'viewer' }, { token: admin.token }),
        403,
        'FORBIDDEN',
      );
      assertError(await ctx.t.api.delete(userUrl(ownerId), { token: admin.token }), 403, 'FORBIDDEN');
      assertError(
        await ctx.t.api.patch(userUrl(viewer.id), { role: 'owner' }, { token: admin.token }),
        403,
        'FORBIDDEN',
      );
      assertError(
        await ctx.t.api.post(INVITATIONS, { email: newAddress(), role: 'owner' }, { token: admin.token }),
        403,
        'FORBIDDEN',
      );
      // What an admin may do: change and remove others who are not owners.
      assert.equal(
        (await ctx.t.api.patch(userUrl(viewer.id), { role: 'finance' }, { token: admin.token })).status,
        200,
      );
      assert.equal((await ctx.t.api.delete(userUrl(viewer.id), { token: admin.token })).status, 200);
      assert.equal((await ctx.t.api.post(TEAM, {}, { token: admin.token })).status !== 403, true);
    });

    it('password reset works for an invited user and ends only their sessions', async () => {
      const owner = await newPartner(ctx, 'signed-in');
      const user = await addUser(ctx, owner.token, 'finance');
      const forgot = await ctx.t.api.post(FORGOT_PASSWORD, { email: user.email });
      assert.equal(forgot.status, 200, forgot.text);
      const otp = await ctx.sink.otpFor(user.email, 2, 'password reset');
      const password = 'Quartz-Meadow-Falcon-77';
      const reset = await ctx.t.api.post(RESET_PASSWORD, {
        email: user.email,
        otp,
        password,
        password_confirmation: password,
      });
      assert.equal(reset.status, 200, reset.text);
      assertError(await ctx.t.api.get(USERS_ME, { token: user.token }), 401, 'UNAUTHENTICATED');
      assert.equal((await ctx.t.api.get(USERS_ME, { token: owner.token })).status, 200);
      assert.equal((await ctx.t.api.post(LOGIN, { email: user.email, password })).status, 200);
    });

    it('API keys cannot manage users (403 FORBIDDEN)', async () => {
      const partner = await newPartner(ctx, 'sandbox');
      assertError(await ctx.t.api.get(USERS, { token: partner.sandboxKey }), 403, 'FORBIDDEN');
      assertError(
        await ctx.t.api.post(
          INVITATIONS,
          { email: newAddress(), role: 'viewer' },
          { token: partner.sandboxKey },
        ),
        403,
        'FORBIDDEN',
      );
    });
  });
}
