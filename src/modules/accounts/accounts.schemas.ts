import { type Static, Type } from '@sinclair/typebox';
import { PASSWORD_MAX_LENGTH } from '../../platform/auth/password-rules.js';
import { ACCESS, USER_ROLES } from '../../platform/auth/roles.js';
import {
  BusinessName,
  Email,
  Environment,
  Nullable,
  Phone,
  StringEnum,
  Success,
  SuccessNoData,
} from '../../platform/http/schemas.js';

const Otp = () =>
  Type.String({
    pattern: '^[0-9]{6}$',
    errorMessage: 'must be exactly 6 digits',
    examples: ['048213'],
  });

/** A new password: its length is checked on the NFKC form; as sent it is at most 128 code points too. */
const Password = (description: string) =>
  Type.String({
    maxLength: PASSWORD_MAX_LENGTH,
    'x-trim': false,
    description,
    examples: ['correct-horse-battery-staple'],
  });

export const RegisterBody = Type.Object(
  {
    business_name: BusinessName({
      description:
        'Names every virtual account (account_name). May be corrected with PUT business-info until the first submission.',
    }),
    email: Email({
      description: 'Login identity; the verification code is sent here. Must not be registered yet.',
    }),
    password: Password(
      '8-128 characters counted after Unicode normalisation (NFKC), the form that is hashed (and at most 128 as sent); taken as sent otherwise (not trimmed); one of the few thousand most common passwords is refused.',
    ),
    password_confirmation: Type.String({
      maxLength: 128,
      'x-trim': false,
      description: 'Must equal password.',
    }),
    phone: Phone(),
  },
  {
    examples: [
      {
        business_name: 'Acme Payments Ltd',
        email: 'ada@acme.ng',
        password: 'correct-horse-battery-staple',
        password_confirmation: 'correct-horse-battery-staple',
        phone: '+234 803 123 4567',
      },
    ],
  },
);
export type RegisterBody = Static<typeof RegisterBody>;

export const REGISTER_MESSAGE =
  'Account created. A 6-digit verification code is on its way to your e-mail address; it expires in 10 minutes.';
export const RegisterResponse = Success(
  Type.Object(
    {
      company_id: Type.Integer({ examples: [42] }),
      email: Type.String({ format: 'email', examples: ['ada@acme.ng'] }),
    },
    { title: 'RegisteredPartner' },
  ),
  REGISTER_MESSAGE,
);

export const VerifyOtpBody = Type.Object(
  {
    email: Email(),
    otp: Otp(),
  },
  { examples: [{ email: 'ada@acme.ng', otp: '048213' }] },
);
export type VerifyOtpBody = Static<typeof VerifyOtpBody>;

export const VerifyOtpResponse = Success(
  Type.Object(
    {
      company_id: Type.Integer({ examples: [42] }),
      email: Type.String({ format: 'email' }),
      verified: Type.Literal(true),
    },
    { title: 'VerifiedPartner' },
  ),
  'Account verified. You can log in now.',
);

export const ResendOtpBody = Type.Object({ email: Email() }, { examples: [{ email: 'ada@acme.ng' }] });
export type ResendOtpBody = Static<typeof ResendOtpBody>;

export const RESEND_OTP_MESSAGE =
  'If an unverified account exists for this e-mail address, a new verification code has been sent.';
export const ResendOtpResponse = SuccessNoData(RESEND_OTP_MESSAGE);

export const ForgotPasswordBody = Type.Object({ email: Email() }, { examples: [{ email: 'ada@acme.ng' }] });
export type ForgotPasswordBody = Static<typeof ForgotPasswordBody>;

export const FORGOT_PASSWORD_MESSAGE =
  'If an account exists for this e-mail address, a password reset code has been sent to it.';
export const ForgotPasswordResponse = SuccessNoData(FORGOT_PASSWORD_MESSAGE);

export const ResetPasswordBody = Type.Object(
  {
    email: Email(),
    otp: Otp(),
    password: Password(
      'The new password: 8-128 characters counted after Unicode normalisation (NFKC), the form that is hashed (and at most 128 as sent); taken as sent otherwise (not trimmed); one of the few thousand most common passwords is refused.',
    ),
    password_confirmation: Type.String({
      maxLength: 128,
      'x-trim': false,
      description: 'Must equal password.',
    }),
  },
  {
    examples: [
      {
        email: 'ada@acme.ng',
        otp: '048213',
        password: 'correct-horse-battery-staple',
        password_confirmation: 'correct-horse-battery-staple',
      },
    ],
  },
);
export type ResetPasswordBody = Static<typeof ResetPasswordBody>;

export const RESET_PASSWORD_MESSAGE =
  'Password changed. Every session was logged out; log in with the new password.';
export const ResetPasswordResponse = SuccessNoData(RESET_PASSWORD_MESSAGE);

export const LoginBody = Type.Object(
  {
    email: Email(),
    password: Type.String({
      maxLength: 128,
      'x-trim': false,
      description: 'Taken exactly as sent (not trimmed).',
    }),
    session: Type.Optional(
      StringEnum(['bearer', 'cookie'], {
        description:
          'bearer (default): the token is in the answer. cookie (a browser page, e.g. the dashboard): the token ' +
          'goes only into an HttpOnly, SameSite=Strict cookie that page scripts cannot read, the answer carries ' +
          'the csrf_token that state-changing requests send as X-CSRF-Token, and the request must come from ' +
          "this site's own Origin.",
      }),
    ),
  },
  { examples: [{ email: 'ada@acme.ng', password: 'correct-horse-battery-staple' }] },
);
export type LoginBody = Static<typeof LoginBody>;

export const SESSION_TTL_SECONDS = 7200;

export const LoginSession = Type.Object(
  {
    token: Nullable(
      Type.String({
        description:
          'Opaque bearer token (256 random bits). Send as `Authorization: Bearer <token>`. null for session=cookie.',
        examples: ['q3Zb1Jx1m0b6v0m8b1C6i3b2Xq0D8Yw4lY2oZ3g5m9A'],
      }),
    ),
    token_type: StringEnum(['Bearer', 'Cookie'], { description: 'Cookie for session=cookie.' }),
    csrf_token: Type.Optional(
      Type.String({
        description: 'session=cookie only: send it as X-CSRF-Token on state-changing requests.',
      }),
    ),
    expires_in: Type.Integer({
      description: 'Seconds until the token expires.',
      examples: [SESSION_TTL_SECONDS],
    }),
    environment: Environment,
  },
  { title: 'Session', description: 'A new session: logged in.' },
);

export const LoginResponse = Success(LoginSession, 'Logged in.');

/** The first step of a login whose user has a second factor (docs/decisions.md, "Dashboard second factor"). */
export const SecondFactorChallenge = Type.Object(
  {
    second_factor_required: Type.Literal(true, {
      description: 'Always true: this answer is not a session. Send a code with the challenge_token.',
    }),
    challenge_token: Type.String({
      description:
        'Send it with the code to POST /client/onboarding/login/second-factor. Works once, for 5 minutes and ' +
        'at most 5 codes; then log in with the password again. Only its hash is stored.',
      examples: ['c2Vjb25kLWZhY3Rvci1jaGFsbGVuZ2UtdG9rZW4tZXhhbXBsZQ'],
    }),
    expires_in: Type.Integer({ description: 'Seconds the challenge_token works.', examples: [300] }),
  },
  {
    title: 'SecondFactorChallenge',
    description:
      'The password was right and the user has a second factor: no session yet. No cookie is set, whatever ' +
      '`session` asked for; the second step sets it.',
  },
);

export const LoginOrChallengeResponse = Success(
  Type.Union([LoginSession, SecondFactorChallenge], {
    description:
      'A Session (`token`, `token_type`, …) for a user without a second factor; a SecondFactorChallenge ' +
      '(`second_factor_required: true`) for a user with one.',
  }),
  'Logged in.',
);

export const LogoutResponse = SuccessNoData('Logged out.');

export const CurrentSessionResponse = Success(
  Type.Object(
    {
      company_id: Type.Integer({ examples: [42] }),
      business_name: Type.String(),
      environment: Environment,
      csrf_token: Type.String({
        description: 'For a cookie session: the X-CSRF-Token value its state-changing requests send.',
      }),
      user: Type.Object(
        {
          id: Type.String({ format: 'uuid' }),
          email: Type.String(),
          name: Type.String(),
          role: StringEnum(USER_ROLES),
        },
        { description: 'The dashboard user signed in.' },
      ),
      permissions: Type.Array(StringEnum(ACCESS), {
        description:
          "The access names the user's role holds in this environment (see GET settings/users/me).",
      }),
    },
    { title: 'CurrentSession' },
  ),
  'Session.',
);
