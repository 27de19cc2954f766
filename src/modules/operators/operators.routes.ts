import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assertOwnOriginIfSent, operatorOf, requestMeta } from '../../platform/http/auth.js';
import type { BrowserCookie } from '../../platform/http/browser-session.js';
import { operation } from '../../platform/http/route.js';
import { success, successMessage } from '../../platform/http/schemas.js';
import { extend } from '../../platform/objects.js';
import type { ClientMeta } from './console-sessions.js';
import {
  AcceptBody,
  AcceptedInvitationResponse,
  CreatedInvitationResponse,
  CreateInvitationBody,
  EnrolmentBody,
  EnrolmentResponse,
  InvitationListResponse,
  InvitationResponse,
  InvitationTokenBody,
  ListQuery,
  OperatorListResponse,
  OperatorParams,
  OperatorResponse,
  OperatorSessionResponse,
  OwnSessionsResponse,
  PasswordBody,
  PasswordChangeBody,
  PasswordChangedResponse,
  SecondFactorBody,
  SessionEndedResponse,
  SessionParams,
  SessionsEndedResponse,
  SignedOutResponse,
  SignInChallengeResponse,
} from './operators.schemas.js';
import { type OperatorsService, SESSION_MS } from './operators.service.js';

const tags = ['Operators'];
const SESSION_SECONDS = SESSION_MS / 1000;

/** The request's audit data and the browser it came from, for a session being opened. */
const clientMeta = (request: FastifyRequest): ClientMeta =>
  extend(requestMeta(request), { userAgent: request.headers['user-agent'] ?? null });

/**
 * The operators of the back office (docs/operator-guide.md, "Who may call it"): sign-in with a
 * password and a TOTP code into a console session cookie, set-up through one-time invitations, and
 * their management by admins.
 */
export const operatorsRoutes: FastifyPluginAsyncTypebox<{
  operators: OperatorsService;
  cookie: BrowserCookie;
}> = async (app, { operators, cookie }) => {
  app.post(
    '/admin/session/password',
    operation({
      operationId: 'startOperatorSignIn',
      summary: "Sign in, step one: the operator's e-mail and password",
      description:
        'Answers a challenge to send with the authenticator code within 5 minutes. Unknown e-mail and wrong ' +
        'password get the same answer; 10 attempts per address in 15 minutes, then 429. A deactivated ' +
        'operator, one whose second factor an admin reset, or one whose second factor is locked gets 403 ' +
        'FORBIDDEN saying so.',
      tags,
      auth: 'none',
      body: PasswordBody,
      response: { 200: SignInChallengeResponse },
      errors: ['INVALID_CREDENTIALS', 'FORBIDDEN', 'CSRF_REJECTED'],
    }),
    async (request) => {
      assertOwnOriginIfSent(request);
      const data = await operators.signInWithPassword(request.body, requestMeta(request));
      return success('Password accepted: enter your authenticator code.', data);
    },
  );

  app.post(
    '/admin/session/second-factor',
    operation({
      operationId: 'finishOperatorSignIn',
      summary: 'Sign in, step two: the authenticator code (or a recovery code)',
      description:
        'Sets the console session cookie (HttpOnly, SameSite=Strict; `__Host-` and Secure in production): 8 ' +
        'hours at most, ended by 30 minutes without a request. A TOTP code is accepted once (one step of 30 s ' +
        'either way); a recovery code once. Five wrong codes end the sign-in (429): enter the password again. ' +
        'Twenty wrong codes in a row, over any number of sign-ins, lock the second factor (403 FORBIDDEN) until ' +
        'an admin resets it. Each check is counted before the code is looked at, so codes sent at once cannot ' +
        'exceed either bound.',
      tags,
      auth: 'none',
      body: SecondFactorBody,
      response: { 200: OperatorSessionResponse },
      errors: ['OTP_INVALID', 'SIGN_IN_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED', 'FORBIDDEN', 'CSRF_REJECTED'],
    }),
    async (request, reply) => {
      assertOwnOriginIfSent(request);
      const { token, view } = await operators.signInWithSecondFactor(request.body, clientMeta(request));
      cookie.set(reply, token, SESSION_SECONDS);
      return success('Signed in.', view);
    },
  );

  app.get(
    '/admin/session',
    operation({
      operationId: 'getOperatorSession',
      summary: 'The signed-in operator and the anti-forgery token of the session',
      description:
        'For the console after a reload: who is signed in, until when, and the X-CSRF-Token value its ' +
        'state-changing requests must send. 401 once the session ended (signed out, 8 hours, 30 minutes idle).',
      tags,
      auth: 'operator',
      response: { 200: OperatorSessionResponse },
    }),
    async (request) => success('Signed in.', await operators.session(request.cookies[cookie.name]!)),
  );

  app.post(
    '/admin/session/logout',
    operation({
      operationId: 'signOutOperator',
      summary: 'Sign out of the console',
      description: 'Ends the session at once, on every instance, and clears the cookie.',
      tags,
      auth: 'operator',
      response: { 200: SignedOutResponse },
    }),
    async (request, reply) => {
      await operators.signOut(operatorOf(request), request.cookies[cookie.name]!, requestMeta(request));
      cookie.clear(reply);
      return successMessage('Signed out.');
    },
  );

  app.post(
    '/admin/invitations/lookup',
    operation({
      operationId: 'getOperatorInvitation',
      summary: 'What an invitation link is for (the set-up page reads it)',
      description:
        'The token comes in the body, never in a path or query, so no access log or proxy records it. 404 for a ' +
        'link that was used, replaced or never existed; 410 INVITATION_EXPIRED after its 72 hours.',
      tags,
      auth: 'none',
      body: InvitationTokenBody,
      response: { 200: InvitationResponse },
      errors: ['NOT_FOUND', 'INVITATION_EXPIRED', 'CSRF_REJECTED'],
    }),
    async (request) => {
      assertOwnOriginIfSent(request);
      return success('Invitation.', await operators.invitation(request.body.token));
    },
  );

  app.post(
    '/admin/invitations/second-factor',
    operation({
      operationId: 'startOperatorEnrolment',
      summary:
        "Set-up, step one: a new operator's name and password, or a reset operator's own password; a TOTP secret",
      description:
        "Answers the secret and an otpauth:// URL to show as a QR code. Nothing is final until the app's code " +
        "is confirmed; asking again draws a new secret. A second-factor reset needs the operator's current " +
        'password (422 on password when wrong, counted with its sign-in attempts: 10 in 15 minutes, then 429), ' +
        'so the admin who made the link cannot use it.',
      tags,
      auth: 'none',
      body: EnrolmentBody,
      response: { 200: EnrolmentResponse },
      errors: ['NOT_FOUND', 'INVITATION_EXPIRED', 'FORBIDDEN', 'CSRF_REJECTED'],
    }),
    async (request) => {
      assertOwnOriginIfSent(request);
      const data = await operators.startEnrolment(request.body.token, request.body, requestMeta(request));
      return success('Scan the QR code, then confirm with a code.', data);
    },
  );

  app.post(
    '/admin/invitations/accept',
    operation({
      operationId: 'acceptOperatorInvitation',
      summary: "Set-up, step two: confirm the authenticator's code",
      description:
        'Creates the operator (or replaces its second factor), uses up the link, signs in (sets the cookie) and ' +
        'answers ten recovery codes, shown this once.',
      tags,
      auth: 'none',
      body: AcceptBody,
      response: { 201: AcceptedInvitationResponse },
      errors: [
        'NOT_FOUND',
        'INVITATION_EXPIRED',
        'OTP_INVALID',
        'SETUP_NOT_STARTED',
        'FORBIDDEN',
        'CSRF_REJECTED',
      ],
    }),
    async (request, reply) => {
      assertOwnOriginIfSent(request);
      const { token, view } = await operators.acceptInvitation(
        request.body.token,
        request.body.code,
        clientMeta(request),
      );
      cookie.set(reply, token, SESSION_SECONDS);
      return reply.code(201).send(success('Second factor enrolled; you are signed in.', view));
    },
  );

  app.post(
    '/admin/invitations',
    operation({
      operationId: 'inviteOperator',
      summary: 'Invite an operator (admins)',
      description:
        'Answers the one-time set-up link (valid 72 hours) to hand to the person: it is shown this once. A new ' +
        'invitation of the same address replaces an open one. 422 on email when the address is an operator already.',
      tags,
      auth: 'admin',
      body: CreateInvitationBody,
      response: { 201: CreatedInvitationResponse },
    }),
    async (request, reply) => {
      const data = await operators.invite(operatorOf(request), request.body, requestMeta(request));
      return reply.code(201).send(success('Invitation created.', data));
    },
  );

  app.get(
    '/admin/invitations',
    operation({
      operationId: 'listOperatorInvitations',
      summary: 'Open invitations (admins)',
      description: 'Invitations neither used, replaced nor expired, oldest first; never their links.',
      tags,
      auth: 'admin',
      querystring: ListQuery,
      response: { 200: InvitationListResponse },
    }),
    async (request) =>
      success('Pending invitations.', await operators.listInvitations(operatorOf(request), request.query)),
  );

  app.get(
    '/admin/operators',
    operation({
      operationId: 'listOperators',
      summary: 'Operators (admins)',
      description: 'Every operator, oldest first, with role, status, second-factor state and last sign-in.',
      tags,
      auth: 'admin',
      querystring: ListQuery,
      response: { 200: OperatorListResponse },
    }),
    async (request) => success('Operators.', await operators.list(operatorOf(request), request.query)),
  );

  app.post(
    '/admin/operators/:id/deactivate',
    operation({
      operationId: 'deactivateOperator',
      summary: 'Deactivate an operator (admins)',
      description: 'At once: every session of the operator ends and it can no longer sign in. Not yourself.',
      tags,
      auth: 'admin',
      params: OperatorParams,
      response: { 200: OperatorResponse },
    }),
    async (request) =>
      success(
        'Operator deactivated.',
        await operators.deactivate(operatorOf(request), request.params.id, requestMeta(request)),
      ),
  );

  app.post(
    '/admin/operators/:id/reset-second-factor',
    operation({
      operationId: 'resetOperatorSecondFactor',
      summary: "Reset an operator's second factor (admins)",
      description:
        'Clears its authenticator secret, recovery codes and a lock, and ends its sessions; answers a one-time ' +
        'link (72 hours) through which the operator enrols a new authenticator after entering its own password ' +
        '(the link alone signs nobody in). Not your own factor: another admin must reset it (403).',
      tags,
      auth: 'admin',
      params: OperatorParams,
      response: { 201: CreatedInvitationResponse },
    }),
    async (request, reply) => {
      const data = await operators.resetSecondFactor(
        operatorOf(request),
        request.params.id,
        requestMeta(request),
      );
      return reply.code(201).send(success('Second factor reset.', data));
    },
  );

  app.post(
    '/admin/me/password',
    operation({
      operationId: 'changeOperatorPassword',
      summary: 'Change your password',
      description:
        'Needs the current password (422 on current_password when wrong; counted with the sign-in attempts of ' +
        'your address: 10 in 15 minutes, then 429). The new one follows the set-up rules and differs from the ' +
        'current one. Every other session of yours ends; this one stays.',
      tags,
      auth: 'operator',
      body: PasswordChangeBody,
      response: { 200: PasswordChangedResponse },
    }),
    async (request) =>
      success(
        'Password changed.',
        await operators.changePassword(operatorOf(request), request.body, requestMeta(request)),
      ),
  );

  app.get(
    '/admin/me/sessions',
    operation({
      operationId: 'listOwnOperatorSessions',
      summary: 'Your console sessions',
      description:
        'Every session of yours still alive (the 100 newest), with where and with what browser it signed in; ' +
        'the one making the request is marked current.',
      tags,
      auth: 'operator',
      response: { 200: OwnSessionsResponse },
    }),
    async (request) => success('Your sessions.', await operators.ownSessions(operatorOf(request))),
  );

  app.delete(
    '/admin/me/sessions/:id',
    operation({
      operationId: 'endOwnOperatorSession',
      summary: 'End one of your sessions',
      description:
        'At once, on every instance. Ending the current one signs you out. 404 for an id not yours.',
      tags,
      auth: 'operator',
      params: SessionParams,
      response: { 200: SessionEndedResponse },
    }),
    async (request) => {
      await operators.endOwnSession(operatorOf(request), request.params.id, requestMeta(request));
      return successMessage('Session ended.');
    },
  );

  app.post(
    '/admin/me/sessions/end-others',
    operation({
      operationId: 'endOtherOperatorSessions',
      summary: 'End all your other sessions',
      description: 'Every session of yours but the one making the request ends at once.',
      tags,
      auth: 'operator',
      response: { 200: SessionsEndedResponse },
    }),
    async (request) =>
      success(
        'Your other sessions ended.',
        await operators.endOtherSessions(operatorOf(request), requestMeta(request)),
      ),
  );
};
