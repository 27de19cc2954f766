import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestMeta, sessionOf } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import {
  LoginBody,
  LoginResponse,
  LogoutResponse,
  RESEND_OTP_MESSAGE,
  RegisterBody,
  RegisterResponse,
  ResendOtpBody,
  ResendOtpResponse,
  VerifyOtpBody,
  VerifyOtpResponse,
} from './accounts.schemas.js';
import type { AccountsService } from './accounts.service.js';

const tags = ['Accounts'];

export const accountsRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountsService }> = async (
  app,
  { accounts },
) => {
  app.post(
    '/client/onboarding/register',
    operation({
      operationId: 'registerPartner',
      summary: 'Register a partner account',
      description:
        'Creates the account (unverified) and e-mails a 6-digit verification code, valid 10 minutes. ' +
        'If the mail server is unreachable the account is still created and the message says so: ' +
        'request a new code with resend-otp.',
      tags,
      auth: 'none',
      body: RegisterBody,
      response: { 201: RegisterResponse },
    }),
    async (request, reply) => {
      const { data, message } = await accounts.register(request.body, requestMeta(request));
      return reply.code(201).send({ status: 'success', message, data });
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
      return { status: 'success', message: 'Account verified. You can log in now.', data };
    },
  );

  app.post(
    '/client/onboarding/resend-otp',
    operation({
      operationId: 'resendPartnerOtp',
      summary: 'Send a new registration code',
      description:
        'Answers the same whether or not an unverified account exists for the e-mail. A new code replaces ' +
        'the previous one. At most one request a minute per e-mail address (429 RATE_LIMITED with ' +
        'Retry-After); the registration e-mail itself does not count, and a send that fails does not use up the minute.',
      tags,
      auth: 'none',
      body: ResendOtpBody,
      response: { 200: ResendOtpResponse },
    }),
    async (request) => {
      await accounts.resendOtp(request.body, requestMeta(request));
      return { status: 'success', message: RESEND_OTP_MESSAGE };
    },
  );

  app.post(
    '/client/onboarding/login',
    operation({
      operationId: 'loginPartner',
      summary: 'Log in and receive a session token',
      description:
        'Sessions last 7200 seconds and start in the sandbox environment. An unknown e-mail and a wrong ' +
        'password get the same answer in the same time. After 10 failed logins for one e-mail within ' +
        '15 minutes, that e-mail gets 429 RATE_LIMITED (with Retry-After) until the window passes.',
      tags,
      auth: 'none',
      body: LoginBody,
      response: { 200: LoginResponse },
      errors: ['INVALID_CREDENTIALS', 'ACCOUNT_NOT_VERIFIED', 'RATE_LIMITED'],
    }),
    async (request) => {
      const data = await accounts.login(request.body, requestMeta(request));
      return { status: 'success', message: 'Logged in.', data };
    },
  );

  app.post(
    '/client/onboarding/logout',
    operation({
      operationId: 'logoutPartner',
      summary: 'Revoke the calling session token',
      tags,
      auth: 'session',
      response: { 200: LogoutResponse },
    }),
    async (request) => {
      await accounts.logout(sessionOf(request), requestMeta(request));
      return { status: 'success', message: 'Logged out.' };
    },
  );
};
