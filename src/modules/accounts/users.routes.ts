import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestMeta, sessionOf } from '../../platform/http/auth.js';
import type { BrowserCookie } from '../../platform/http/browser-session.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently } from '../../platform/idempotency/idempotency.js';
import { answerLogin } from './accounts.routes.js';
import { LoginResponse } from './accounts.schemas.js';
import {
  AcceptBody,
  ChangeRoleBody,
  InvitationParams,
  InvitationResponse,
  InvitationsResponse,
  InviteBody,
  MeResponse,
  PreviewBody,
  PreviewResponse,
  UserParams,
  UserResponse,
  UsersResponse,
} from './users.schemas.js';
import type { UsersService } from './users.service.js';

const tags = ['Dashboard users'];
const USERS = '/services/partner/settings/users';
const INVITATIONS = '/services/partner/settings/invitations';

/** Dashboard users and invitations (docs/partner-guide.md, "Dashboard users"). */
export const usersRoutes: FastifyPluginAsyncTypebox<{
  users: UsersService;
  cookie: BrowserCookie;
  antiForgery: (sessionToken: string) => string;
}> = async (app, { users, cookie, antiForgery }) => {
  app.get(
    USERS,
    operation({
      operationId: 'listDashboardUsers',
      summary: "The business's dashboard users",
      description:
        'Every current user (removed ones are not listed): owners first, then by when they joined. Dashboard ' +
        'sessions only (an API key gets 403 FORBIDDEN).',
      tags,
      auth: 'session',
      access: 'read',
      response: { 200: UsersResponse },
    }),
    async (request) => success('Users.', await users.list(sessionOf(request))),
  );

  app.get(
    `${USERS}/me`,
    operation({
      operationId: 'getDashboardUserMe',
      summary: 'You, with the permissions of your role',
      description:
        'The signed-in user and `permissions`: the access names the role holds in the current environment ' +
        '(developers hold `money` in the sandbox only).',
      tags,
      auth: 'session',
      access: 'read',
      withoutSecondFactor: true,
      response: { 200: MeResponse },
    }),
    async (request) => success('You.', await users.me(sessionOf(request))),
  );

  app.patch(
    `${USERS}/:id`,
    operation({
      operationId: 'changeDashboardUserRole',
      summary: "Change a user's role",
      description:
        'Takes effect on their next request. A business always keeps an owner: changing the last owner away ' +
        'from owner is 409 LAST_OWNER (checked in the change itself, so two racing changes cannot both pass). ' +
        'An admin may not change an owner or make one (403 FORBIDDEN); only an owner may change their own role.',
      tags,
      auth: 'session',
      access: 'users',
      params: UserParams,
      body: ChangeRoleBody,
      response: { 200: UserResponse },
      errors: ['LAST_OWNER'],
    }),
    async (request) =>
      success(
        'Role changed.',
        await users.changeRole(
          sessionOf(request),
          request.params.id,
          request.body.role,
          requestMeta(request),
        ),
      ),
  );

  app.delete(
    `${USERS}/:id`,
    operation({
      operationId: 'removeDashboardUser',
      summary: 'Remove a user',
      description:
        'Their sessions end at once (their next request is 401). Removing the last owner is 409 LAST_OWNER; ' +
        'an admin may not remove an owner (403 FORBIDDEN); you may remove yourself unless you are the last ' +
        'owner. API keys they created keep working until revoked: revoke them if they should not. The audit ' +
        'trail keeps naming them.',
      tags,
      auth: 'session',
      access: 'users',
      params: UserParams,
      response: { 200: UserResponse },
      errors: ['LAST_OWNER'],
    }),
    async (request) =>
      success(
        'User removed.',
        await users.remove(sessionOf(request), request.params.id, requestMeta(request)),
      ),
  );

  app.get(
    INVITATIONS,
    operation({
      operationId: 'listInvitations',
      summary: 'Pending invitations',
      description: 'Invitations not accepted, revoked or expired, newest first.',
      tags,
      auth: 'session',
      access: 'read',
      response: { 200: InvitationsResponse },
    }),
    async (request) => success('Invitations.', await users.listInvitations(sessionOf(request))),
  );

  app.post(
    INVITATIONS,
    operation({
      operationId: 'inviteDashboardUser',
      summary: 'Invite someone by e-mail',
      description:
        'E-mails the address a one-time link, valid 72 hours, to `<PUBLIC_URL>/dashboard/accept-invitation#token=…` ' +
        '(the token is in the fragment, which browsers never send to a server; only its hash is stored). A pending ' +
        'invitation of the same address is replaced: its link stops working. An address that is already a ' +
        'dashboard user of any business is 409 USER_EXISTS. An admin may not invite an owner (403 FORBIDDEN).',
      tags,
      auth: 'session',
      access: 'users',
      body: InviteBody,
      idempotent: true,
      response: { 201: InvitationResponse },
      errors: ['USER_EXISTS'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        201,
        () => users.invite(sessionOf(request), request.body, requestMeta(request)),
        (data) => success('Invitation sent.', data),
      ),
  );

  app.post(
    `${INVITATIONS}/:id/resend`,
    operation({
      operationId: 'resendInvitation',
      summary: 'Send an invitation again',
      description:
        'A new link (and 72 hours) in a new e-mail; the previous link stops working. An expired invitation may ' +
        'be resent; an accepted or revoked one is 409 INVITATION_NOT_PENDING.',
      tags,
      auth: 'session',
      access: 'users',
      params: InvitationParams,
      idempotent: true,
      response: { 200: InvitationResponse },
      errors: ['INVITATION_NOT_PENDING'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () => users.resend(sessionOf(request), request.params.id, requestMeta(request)),
        (data) => success('Invitation sent again.', data),
      ),
  );

  app.delete(
    `${INVITATIONS}/:id`,
    operation({
      operationId: 'revokeInvitation',
      summary: 'Revoke an invitation',
      description:
        'Its link stops working. Revoking a revoked invitation answers the same; an accepted one is 409 INVITATION_NOT_PENDING.',
      tags,
      auth: 'session',
      access: 'users',
      params: InvitationParams,
      response: { 200: InvitationResponse },
      errors: ['INVITATION_NOT_PENDING'],
    }),
    async (request) =>
      success(
        'Invitation revoked.',
        await users.revoke(sessionOf(request), request.params.id, requestMeta(request)),
      ),
  );

  app.post(
    '/client/onboarding/invitations/preview',
    operation({
      operationId: 'previewInvitation',
      summary: 'What an invitation link is for',
      description:
        'The business, address and role of the link, before its person chooses a password. A used, replaced, ' +
        'revoked or unknown link is 404 NOT_FOUND; an expired one 410 INVITATION_EXPIRED.',
      tags,
      auth: 'none',
      body: PreviewBody,
      response: { 200: PreviewResponse },
      errors: ['NOT_FOUND', 'INVITATION_EXPIRED'],
    }),
    async (request) => success('Invitation.', await users.preview(request.body.token)),
  );

  app.post(
    '/client/onboarding/invitations/accept',
    operation({
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation: choose a name and password, and log in',
      description:
        'Makes the user with the invitation’s address and role and answers exactly as login does (a sandbox ' +
        'session; session=cookie as for login). Password rules as at registration. A link is accepted once: a ' +
        'second accept, even racing, is 404 NOT_FOUND; an expired link 410 INVITATION_EXPIRED; an address that ' +
        'became a user meanwhile 409 USER_EXISTS.',
      tags,
      auth: 'none',
      body: AcceptBody,
      response: { 200: LoginResponse },
      errors: ['NOT_FOUND', 'INVITATION_EXPIRED', 'USER_EXISTS'],
    }),
    async (request, reply) => {
      const { session, ...input } = request.body;
      return answerLogin(request, reply, session, { cookie, antiForgery }, () =>
        users.accept(input, requestMeta(request)),
      );
    },
  );
};
