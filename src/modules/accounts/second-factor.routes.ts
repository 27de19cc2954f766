import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestMeta, sessionOf } from '../../platform/http/auth.js';
import type { BrowserCookie } from '../../platform/http/browser-session.js';
import { operation } from '../../platform/http/route.js';
import { success, successMessage } from '../../platform/http/schemas.js';
import { answerIdempotently, withoutSecret } from '../../platform/idempotency/idempotency.js';
import { answerLogin } from './accounts.routes.js';
import { LoginResponse } from './accounts.schemas.js';
import {
  ConfirmBody,
  ConfirmResponse,
  DisableBody,
  DisableResponse,
  EnrolmentStartResponse,
  ResetResponse,
  SecondFactorLoginBody,
  SecondFactorStatusResponse,
  SecurityBody,
  SecurityResponse,
} from './second-factor.schemas.js';
import type { SecondFactorService } from './second-factor.service.js';
import { UserParams } from './users.schemas.js';

/** What a replay of a start says: the secret is never kept for replays. */
const START_REPLAY_MESSAGE =
  'An enrolment was started earlier with this Idempotency-Key. Its secret was shown only in the first answer: start again for a new one.';
/** What a replay of a confirmation says: the recovery codes are never kept. */
const CONFIRM_REPLAY_MESSAGE =
  'The second factor was confirmed earlier with this Idempotency-Key. The recovery codes were shown only in the first answer: if they were lost, turn the factor off and enrol again.';

const tags = ['Dashboard users'];
const MINE = '/services/partner/settings/users/me/second-factor';
const SECURITY = '/services/partner/settings/security';

/** A dashboard user's second factor and the business's policy (docs/partner-guide.md, "Second factor"). */
export const secondFactorRoutes: FastifyPluginAsyncTypebox<{
  factors: SecondFactorService;
  cookie: BrowserCookie;
  antiForgery: (sessionToken: string) => string;
}> = async (app, { factors, cookie, antiForgery }) => {
  app.get(
    MINE,
    operation({
      operationId: 'getOwnSecondFactor',
      summary: 'Your second factor',
      description:
        'Whether your logins ask for an authenticator code, recovery codes left, whether this session was made ' +
        "with the factor, and the business's policy. Every user manages their own factor.",
      tags,
      auth: 'session',
      access: 'read',
      withoutSecondFactor: true,
      response: { 200: SecondFactorStatusResponse },
    }),
    async (request) => success('Second factor.', await factors.status(sessionOf(request))),
  );

  app.post(
    MINE,
    operation({
      operationId: 'startSecondFactor',
      summary: 'Start enrolling a second factor',
      description:
        'A new TOTP secret (RFC 6238, 6 digits, 30 seconds; issuer "BaaS Dashboard") and its otpauth:// URL. ' +
        'Nothing changes for logins until POST …/confirm proves the app has it; asking again draws a new ' +
        'secret. With a factor already on: 409 SECOND_FACTOR_ENROLLED (turn it off first).',
      tags,
      auth: 'session',
      access: 'read',
      withoutSecondFactor: true,
      idempotent: true,
      replayBody: withoutSecret(['secret', 'otpauth_url'], START_REPLAY_MESSAGE),
      response: { 200: EnrolmentStartResponse },
      errors: ['SECOND_FACTOR_ENROLLED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () => factors.start(sessionOf(request), requestMeta(request)),
        (data) => success('Add the secret to your authenticator app, then confirm with its code.', data),
      ),
  );

  app.post(
    `${MINE}/confirm`,
    operation({
      operationId: 'confirmSecondFactor',
      summary: 'Confirm the second factor with its first code',
      description:
        'The code turns the pending secret into your factor: from the next login on, a code is asked after ' +
        'the password. The answer carries ten recovery codes, shown this once. The calling session stays as ' +
        'it was made (without a factor): log in again for a session made with it. A wrong code is 422 ' +
        'OTP_INVALID; no enrolment started: 409 SETUP_NOT_STARTED.',
      tags,
      auth: 'session',
      access: 'read',
      withoutSecondFactor: true,
      body: ConfirmBody,
      idempotent: true,
      replayBody: withoutSecret('recovery_codes', CONFIRM_REPLAY_MESSAGE),
      response: { 200: ConfirmResponse },
      errors: ['OTP_INVALID', 'SETUP_NOT_STARTED', 'SECOND_FACTOR_ENROLLED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () => factors.confirm(sessionOf(request), request.body.code, requestMeta(request)),
        (data) => success('Second factor on. Keep the recovery codes somewhere safe.', data),
      ),
  );

  app.delete(
    MINE,
    operation({
      operationId: 'disableSecondFactor',
      summary: 'Turn your second factor off',
      description:
        'Takes your password (a wrong one is 422 VALIDATION_FAILED; 10 tries in 15 minutes). Your recovery ' +
        'codes go with it; sessions already made stay. While the business requires a factor of everyone: ' +
        '409 SECOND_FACTOR_ENFORCED. No factor on: 404 NOT_FOUND.',
      tags,
      auth: 'session',
      access: 'read',
      body: DisableBody,
      response: { 200: DisableResponse },
      errors: ['SECOND_FACTOR_ENFORCED', 'NOT_FOUND'],
    }),
    async (request) => {
      await factors.disable(sessionOf(request), request.body.password, requestMeta(request));
      return successMessage('Second factor turned off.');
    },
  );

  app.post(
    '/services/partner/settings/users/:id/second-factor/reset',
    operation({
      operationId: 'resetDashboardUserSecondFactor',
      summary: "Reset another user's second factor",
      description:
        'For a lost phone or a locked factor: the user logs in with the password alone (and may enrol again; ' +
        'where the business requires a factor of everyone, they must). Their recovery codes and any login ' +
        "waiting for a code end. An admin may not reset an owner's factor (403 FORBIDDEN); your own is turned " +
        'off with your password instead (DELETE users/me/second-factor).',
      tags,
      auth: 'session',
      access: 'users',
      params: UserParams,
      idempotent: true,
      response: { 200: ResetResponse },
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () => factors.reset(sessionOf(request), request.params.id, requestMeta(request)),
        (data) => success('Second factor reset.', data),
      ),
  );

  app.post(
    '/client/onboarding/login/second-factor',
    operation({
      operationId: 'loginPartnerSecondFactor',
      summary: "Finish a login with the authenticator's code",
      description:
        'The second step of a login that answered `second_factor_required`: the challenge_token with either ' +
        "`code` (the app's 6 digits; one 30-second step either way; a code already used is refused) or " +
        '`recovery_code` (each works once). The answer is the login answer, a session made with the second ' +
        'factor. A wrong code is 422 OTP_INVALID; after 5 wrong codes the challenge ends (429 ' +
        'OTP_ATTEMPTS_EXCEEDED: log in with the password again); an expired or used challenge is 422 ' +
        'SIGN_IN_EXPIRED; 20 wrong codes in a row, over every login, lock the factor (403 FORBIDDEN) until ' +
        'an owner or admin resets it.',
      tags: ['Accounts'],
      auth: 'none',
      body: SecondFactorLoginBody,
      response: { 200: LoginResponse },
      errors: ['OTP_INVALID', 'OTP_ATTEMPTS_EXCEEDED', 'SIGN_IN_EXPIRED', 'FORBIDDEN'],
    }),
    async (request, reply) => {
      const { session, ...input } = request.body;
      return answerLogin(request, reply, session, { cookie, antiForgery }, () =>
        factors.login(input, requestMeta(request)),
      );
    },
  );

  app.get(
    SECURITY,
    operation({
      operationId: 'getSecuritySettings',
      summary: "The business's security settings",
      description: 'What dashboard sessions need a second factor for (default live_money).',
      tags,
      auth: 'session',
      access: 'read',
      response: { 200: SecurityResponse },
    }),
    async (request) => success('Security settings.', await factors.policy(sessionOf(request))),
  );

  app.put(
    SECURITY,
    operation({
      operationId: 'updateSecuritySettings',
      summary: "Change the business's security settings",
      description:
        'Owners only. everyone takes effect at once: every session made without a factor (yours included) ' +
        'can then only enrol one, read the session, and log out. Setting everyone needs a session made with ' +
        'a second factor (403 SECOND_FACTOR_REQUIRED otherwise), so an owner cannot lock themselves out.',
      tags,
      auth: 'session',
      access: 'owner',
      body: SecurityBody,
      response: { 200: SecurityResponse },
    }),
    async (request) =>
      success(
        'Security settings saved.',
        await factors.setPolicy(sessionOf(request), request.body.second_factor, requestMeta(request)),
      ),
  );
};
