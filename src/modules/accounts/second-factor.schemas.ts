import { Type } from '@sinclair/typebox';
import { SECOND_FACTOR_POLICIES } from '../../platform/auth/roles.js';
import { Nullable, StringEnum, Success, SuccessNoData, Timestamp } from '../../platform/http/schemas.js';

const Policy = StringEnum(SECOND_FACTOR_POLICIES, {
  description:
    'What a dashboard session needs a second factor for. live_money (default): moving money or changing ' +
    'accounts in live (access `money`); everyone: every dashboard request but the session, logout, your own ' +
    'user and enrolling your factor. A session made without a factor gets 403 SECOND_FACTOR_REQUIRED there. ' +
    'API keys are never asked.',
});

export const SecondFactorStatusResponse = Success(
  Type.Object(
    {
      enabled: Type.Boolean({ description: 'Logins of this user ask for a code.' }),
      pending: Type.Boolean({ description: 'An enrolment was started and waits for its first code.' }),
      enrolled_at: Nullable(Timestamp()),
      locked: Type.Boolean({
        description: 'Too many wrong codes: logins are refused until an owner or admin resets the factor.',
      }),
      recovery_codes_left: Type.Integer({ minimum: 0, description: 'Unused recovery codes.' }),
      this_session: Type.Boolean({ description: 'The calling session was made with the second factor.' }),
      policy: Policy,
    },
    { title: 'DashboardSecondFactorStatus' },
  ),
  'Second factor.',
);

export const EnrolmentStartResponse = Success(
  Type.Object(
    {
      secret: Nullable(
        Type.String({
          description:
            'Base32 secret to type into an authenticator app (shown once; stored encrypted). null in an ' +
            'idempotent replay (Idempotent-Replayed: true): the answer kept for a replay never holds it; start again.',
          examples: ['JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'],
        }),
      ),
      otpauth_url: Nullable(
        Type.String({
          description:
            'The same secret as an otpauth:// URL (issuer "BaaS Dashboard"), for a QR code or a link; null in a replay.',
          examples: [
            'otpauth://totp/BaaS%20Dashboard:ada%40acme.ng?issuer=BaaS%20Dashboard&secret=JBSWY3DPEHPK3PXP',
          ],
        }),
      ),
    },
    { title: 'DashboardSecondFactorEnrolment' },
  ),
  'Add the secret to your authenticator app, then confirm with its code.',
);

const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The 6-digit code your authenticator app shows now.',
  examples: ['492039'],
});

export const ConfirmBody = Type.Object({ code: Code }, { examples: [{ code: '492039' }] });

export const ConfirmResponse = Success(
  Type.Object(
    {
      enrolled_at: Timestamp(),
      recovery_codes: Nullable(
        Type.Array(Type.String({ examples: ['k3b7q-x9m2a'] }), {
          description:
            'Ten one-time codes for when the phone is lost: shown this once (only their hashes are kept). Each ' +
            'works once in place of a code; case, spaces and dashes do not matter. null in an idempotent ' +
            'replay: if the first answer was lost, turn the factor off and enrol again.',
        }),
      ),
    },
    { title: 'DashboardSecondFactorConfirmed' },
  ),
  'Second factor on. Keep the recovery codes somewhere safe.',
);

export const DisableBody = Type.Object(
  { password: Type.String({ maxLength: 128, 'x-trim': false, description: 'Your password.' }) },
  { examples: [{ password: 'correct-horse-battery-staple' }] },
);
export const DisableResponse = SuccessNoData('Second factor turned off.');

export const ResetResponse = Success(
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      second_factor: Type.Literal(false),
    },
    { title: 'DashboardSecondFactorReset' },
  ),
  'Second factor reset.',
);

export const SecondFactorLoginBody = Type.Object(
  {
    challenge_token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The challenge_token of the login answer.',
    }),
    code: Type.Optional(Code),
    recovery_code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Instead of code: one of your recovery codes (each works once).',
        examples: ['k3b7q-x9m2a'],
      }),
    ),
    session: Type.Optional(
      StringEnum(['bearer', 'cookie'], {
        description: 'As for login: bearer (default) or cookie (a browser page on this site).',
      }),
    ),
  },
  { examples: [{ challenge_token: 'c2Vjb25kLWZhY3Rvci1jaGFsbGVuZ2U', code: '492039' }] },
);

export const SecurityResponse = Success(
  Type.Object({ second_factor: Policy }, { title: 'DashboardSecuritySettings' }),
  'Security settings.',
);
export const SecurityBody = Type.Object(
  { second_factor: Policy },
  { examples: [{ second_factor: 'everyone' }] },
);
