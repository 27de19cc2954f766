import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { uniqueSuffix } from './factories.js';
import { parseMail } from './mime.js';
import { ACCEPT_INVITATION, INVITATIONS, USERS_ME } from './paths.js';
import type { SmtpSink } from './smtp-sink.js';

/** Dashboard users made over HTTP: an invitation read from the SMTP sink, accepted with a password. */

export type Role = 'owner' | 'admin' | 'developer' | 'finance' | 'viewer';

export interface DashboardUser {
  id: string;
  email: string;
  name: string;
  password: string;
  role: Role;
  /** A sandbox session of the user (from accepting). */
  token: string;
}

export const newAddress = (label = 'user') => `${label}-${uniqueSuffix()}@example.com`.toLowerCase();

/** The token of the n-th invitation e-mail to `email`, read from its link (text and HTML alike). */
export async function invitationToken(sink: SmtpSink, email: string, count = 1): Promise<string> {
  const mail = parseMail((await sink.waitForMail(email, count)).raw);
  const match = /\/dashboard\/accept-invitation#token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  assert.ok(match, 'the invitation e-mail holds the link');
  return match[1]!;
}

/** Invites `email` as `role` with an inviter's session: 201, the invitation. */
export async function invite(t: Pick<TestApp, 'api'>, token: string, email: string, role: Role) {
  const response = await t.api.post(INVITATIONS, { email, role }, { token });
  assert.equal(response.status, 201, response.text);
  return response.body.data as { id: string; email: string; role: Role; status: string };
}

export const PASSWORD = 'Granite-Lantern-Orbit-42';

/** A user of the business of `inviterToken`, invited and accepted: their session and id. */
export async function addUser(
  kit: { t: Pick<TestApp, 'api'>; sink: SmtpSink },
  inviterToken: string,
  role: Role,
): Promise<DashboardUser> {
  const email = newAddress(role);
  await invite(kit.t, inviterToken, email, role);
  const invitationToken_ = await invitationToken(kit.sink, email);
  const name = `${role[0]!.toUpperCase()}${role.slice(1)} ${uniqueSuffix()}`;
  const accepted = await kit.t.api.post(ACCEPT_INVITATION, {
    token: invitationToken_,
    name,
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  assert.equal(accepted.status, 200, accepted.text);
  const token = accepted.body.data.token as string;
  const me = await kit.t.api.get(USERS_ME, { token });
  assert.equal(me.status, 200, me.text);
  return { id: me.body.data.id as string, email, name, password: PASSWORD, role, token };
}

/** The id of the business's first owner (the registering user), read from the database. */
export async function ownerIdOf(t: Pick<TestApp, 'db'>, companyId: number): Promise<string> {
  const row = await t.db
    .selectFrom('partner_users')
    .select('id')
    .where('partner_id', '=', companyId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .executeTakeFirstOrThrow();
  return row.id;
}
