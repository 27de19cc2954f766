import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { permissionsOf } from '../../platform/auth/roles.js';
import type { Environment } from '../../platform/environment.js';
import { assertOwnOriginIfSent, requestMeta, sessionOf } from '../../platform/http/auth.js';
import type { BrowserCookie } from '../../platform/http/browser-session.js';
import { operation } from '../../platform/http/route.js';
import { success, successMessage } from '../../platform/http/schemas.js';
import { extend } from '../../platform/objects.js';
import {
  CurrentSessionResponse,
  FORGOT_PASSWORD_MESSAGE,
  ForgotPasswordBody,
  ForgotPasswordResponse,
  LoginBody,
  LoginOrChallengeResponse,
  LogoutResponse,
  REGISTER_MESSAGE,
  RESEND_OTP_MESSAGE,
  RESET_PASSWORD_MESSAGE,
  RegisterBody,
  RegisterResponse,
  ResendOtpBody,
  ResendOtpResponse,
  ResetPasswordBody,
  ResetPasswordResponse,
  VerifyOtpBody,
  VerifyOtpResponse,
} from './accounts.schemas.js';
import type { AccountsService } from './accounts.service.js';

const tags = ['Accounts'];

/**
 * The answer of a new session (login, an accepted invitation): the bearer token, or with
 * session=cookie the HttpOnly cookie and the anti-forgery token (the request must come from this
 * site's Origin if it names one).
 */
export async function answerLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  mode: 'bearer' | 'cookie' | undefined,
  channel: { cookie: BrowserCookie; antiForgery: (sessionToken: string) => string },
  start: () => Promise<
    | { token: string; token_type: 'Bearer'; expires_in: number; environment: Environment }
    | { second_factor_required: true; challenge_token: string; expires_in: number }
  >,
) {
  if (mode === 'cookie') assertOwnOriginIfSent(request);
  const data = await start();
  // A user with a second factor: no session yet, the code comes next (POST login/second-factor).
  if ('second_factor_required' in data) return success('Enter the code of your authenticator app.', data);
  if (mode !== 'cookie') return success('Logged in.', data);
  channel.cookie.set(reply, data.token, data.expires_in);
  return success(
    'Logged in.',
    extend(data, { token: null, token_type: 'Cookie' as const, csrf_token: channel.antiForgery(data.token) }),
  );
}

export const accountsRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountsService;
  /** The dashboard's session cookie (login with session=cookie). */
  cookie: BrowserCookie;
  antiForgery: (sessionToken: string) => string;
}> = async (app, { accounts, cookie, antiForgery }) => {
  app.post(
    '/client/onboarding/register',
    operation({
      operationId: 'registerPartner',
      summary: 'Register a partner account',
      description:
        'Creates the account (unverified) and e-mails a 6-digit verification code, valid 10 minutes. The ' +
        'e-mail is queued with the account and sent in the background (retried if the mail server is down), ' +
        'so the answer never waits for it. An account not verified within 24 hours of its last code is ' +
        'deleted and the e-mail address is free again. At most 10 codes (registration, resend, reset) go to ' +
        'one address in 24 hours (429 RATE_LIMITED with Retry-After).',
      tags,
      auth: 'none',
      body: RegisterBody,
      response: { 201: RegisterResponse },
    }),
    async (request, reply) => {
      const data = await accounts.register(request.body, requestMeta(request));
      return reply.code(201).send(success(REGISTER_MESSAGE, data));
    },
  );

  app.post(
    '/client/onboarding/verify-otp',
    operation({
      operationId: 'verifyPartnerOtp',
      summary: 'Verify the registration code',
      description:
        'Codes are valid for 10 minutes and single use. Five wrong codes kill the code ' +
        '(OTP_ATTEMPTS_EXCEEDED): request a new one with resend-otp. An unknown e-mail gives OTP_INVALID.',
      tags,
      auth: 'none',
      body: VerifyOtpBody,
      response: { 200: VerifyOtpResponse },
      errors: ['OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED', 'ACCOUNT_ALREADY_VERIFIED'],
    }),
    async (request) => {
      const data = await accounts.verifyOtp(request.body, requestMeta(request));
      return success('Account verified. You can log in now.', data);
    },
  );

  app.post(
    '/client/onboarding/resend-otp',
    operation({
      operationId: 'resendPartnerOtp',
      summary: 'Send a new registration code',
      description:
        'Answers the same whether or not an unverified account exists for the e-mail. A new code replaces ' +
        'the previous one. At most one request a minute per e-mail address, and 10 codes of any kind a day ' +
        '(429 RATE_LIMITED with Retry-After); the registration e-mail does not count toward the minute.',
      tags,
      auth: 'none',
      body: ResendOtpBody,
      response: { 200: ResendOtpResponse },
    }),
    async (request) => {
      await accounts.resendOtp(request.body, requestMeta(request));
      return successMessage(RESEND_OTP_MESSAGE);
    },
  );

  app.post(
    '/client/onboarding/password/forgot',
    operation({
      operationId: 'forgotPartnerPassword',
      summary: 'E-mail a password reset code',
      description:
        'Answers the same whether or not an account exists for the e-mail; when one does, a 6-digit reset ' +
        'code (valid 10 minutes, 5 wrong tries) is e-mailed. At most one request a minute per address and 10 ' +
        'codes of any kind a day (429 RATE_LIMITED with Retry-After). Works for unverified accounts too: ' +
        'the reset proves the address.',
      tags,
      auth: 'none',
      body: ForgotPasswordBody,
      response: { 200: ForgotPasswordResponse },
    }),
    async (request) => {
      await accounts.forgotPassword(request.body, requestMeta(request));
      return successMessage(FORGOT_PASSWORD_MESSAGE);
    },
  );

  app.post(
    '/client/onboarding/password/reset',
    operation({
      operationId: 'resetPartnerPassword',
      summary: 'Set a new password with the e-mailed reset code',
      description:
        'Sets the new password (same rules as registration), logs out every session of the account, lifts ' +
        'the login lock of the address and marks an unverified account verified (the code proves the ' +
        'e-mail is theirs). OTP_INVALID / OTP_EXPIRED / OTP_ATTEMPTS_EXCEEDED as for verification; an ' +
        'unknown e-mail gives OTP_INVALID. The new password is checked first: a refused password uses no guess.',
      tags,
      auth: 'none',
      body: ResetPasswordBody,
      response: { 200: ResetPasswordResponse },
      errors: ['OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED'],
    }),
    async (request) => {
      await accounts.resetPassword(request.body, requestMeta(request));
      return successMessage(RESET_PASSWORD_MESSAGE);
    },
  );

  app.post(
    '/client/onboarding/login',
    operation({
      operationId: 'loginPartner',
      summary: 'Log in and receive a session token',
      description:
        'Sessions last 7200 seconds and start in the sandbox environment. A user with a second factor gets no ' +
        'session here but a SecondFactorChallenge (`second_factor_required: true`, a challenge_token): send it ' +
        'with a code to POST /client/onboarding/login/second-factor. A locked factor is 403 FORBIDDEN. ' +
        'An unknown e-mail and a wrong ' +
        'password get the same answer in the same time. After 10 failed logins for one e-mail within ' +
        '15 minutes, that e-mail gets 429 RATE_LIMITED (with Retry-After) until the window passes.',
      tags,
      auth: 'none',
      body: LoginBody,
      response: { 200: LoginOrChallengeResponse },
      errors: ['INVALID_CREDENTIALS', 'ACCOUNT_NOT_VERIFIED', 'RATE_LIMITED'],
    }),
    async (request, reply) => {
      const { session, ...credentials } = request.body;
      return answerLogin(request, reply, session, { cookie, antiForgery }, () =>
        accounts.login(credentials, requestMeta(request)),
      );
    },
  );

  app.post(
    '/client/onboarding/logout',
    operation({
      operationId: 'logoutPartner',
      summary: 'Revoke the calling session token',
      description:
        'Ends this session at once, on every instance; other sessions of the account stay valid. A password reset ends them all.',
      tags,
      auth: 'session',
      access: 'read',
      suspendedLiveSession: true,
      withoutSecondFactor: true,
      response: { 200: LogoutResponse },
    }),
    async (request, reply) => {
      await accounts.logout(sessionOf(request), requestMeta(request));
      if (request.cookies[cookie.name] !== undefined) cookie.clear(reply);
      return successMessage('Logged out.');
    },
  );

  app.get(
    '/client/onboarding/session',
    operation({
      operationId: 'getPartnerSession',
      summary: 'The calling session: partner, environment and anti-forgery token',
      description:
        'For a browser page after a reload (the cookie is HttpOnly): who is signed in, in which environment, ' +
        'and the csrf_token that state-changing requests with the cookie send as X-CSRF-Token; the signed-in ' +
        'dashboard user and the permissions their role holds in this environment. Works with a bearer token too.',
      tags,
      auth: 'session',
      access: 'read',
      suspendedLiveSession: true,
      withoutSecondFactor: true,
      response: { 200: CurrentSessionResponse },
    }),
    async (request) => {
      const session = sessionOf(request);
      return success('Session.', {
        company_id: session.partnerId,
        business_name: session.businessName,
        environment: session.environment,
        csrf_token: antiForgery(request.sessionToken!),
        user: await accounts.sessionUser(session),
        permissions: permissionsOf(session.role, session.environment),
      });
    },
  );
};
