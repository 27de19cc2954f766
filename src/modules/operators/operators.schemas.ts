import { type Static, Type } from '@sinclair/typebox';
import { OPERATOR_ROLES } from '../../platform/auth/credentials.js';
import {
  Email,
  Nullable,
  Page,
  PaginationQuery,
  StringEnum,
  Success,
  SuccessNoData,
  Timestamp,
} from '../../platform/http/schemas.js';

export { OPERATOR_ROLES, type OperatorRole } from '../../platform/auth/credentials.js';
export const OPERATOR_STATUSES = ['active', 'deactivated'] as const;
export type OperatorStatus = (typeof OPERATOR_STATUSES)[number];

const Role = StringEnum(OPERATOR_ROLES, {
  description:
    'reviewer: decides documents and requests changes; admin: also approves, rejects, suspends, reinstates and manages operators.',
});

/** A link token: 256 random bits, base64url. */
const LinkToken = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The token of the link.' });

export const OperatorIdentity = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String({ format: 'email' }),
    name: Type.String(),
    role: Role,
  },
  { title: 'OperatorIdentity' },
);

export const Operator = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String({ format: 'email' }),
    name: Type.String(),
    role: Role,
    status: StringEnum(OPERATOR_STATUSES),
    second_factor: StringEnum(['enrolled', 'reset_pending'], {
      description: 'reset_pending: an admin reset it; the operator enrols a new one through the link given.',
    }),
    last_sign_in_at: Nullable(Timestamp()),
    created_at: Timestamp(),
  },
  { title: 'Operator' },
);
export const OperatorResponse = Success(Operator, 'Operator.');
export const OperatorListResponse = Success(Page(Operator), 'Operators.');
export const OperatorParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

const SessionFields = {
  operator: OperatorIdentity,
  csrf_token: Type.String({
    description:
      'Send it as the X-CSRF-Token header with every state-changing request made with the session cookie.',
  }),
  expires_at: Timestamp('The session ends then at the latest (8 hours after sign-in).'),
  idle_timeout_seconds: Type.Integer({ description: 'The session ends after this long without a request.' }),
};
export const OperatorSession = Type.Object(SessionFields, { title: 'OperatorSession' });
export const OperatorSessionResponse = Success(OperatorSession, 'Signed in.');

export const PasswordBody = Type.Object(
  {
    email: Email(),
    password: Type.String({ maxLength: 128, 'x-trim': false, description: 'Taken exactly as sent.' }),
  },
  { examples: [{ email: 'ngozi@operator.ng', password: 'correct-horse-battery-staple' }] },
);
export type PasswordBody = Static<typeof PasswordBody>;
export const SignInChallenge = Type.Object(
  {
    challenge: Type.String({ description: 'Send it with the second factor within expires_in seconds.' }),
    expires_in: Type.Integer({ examples: [300] }),
  },
  { title: 'SignInChallenge' },
);
export const SignInChallengeResponse = Success(
  SignInChallenge,
  'Password accepted: enter your authenticator code.',
);

export const SecondFactorBody = Type.Object(
  {
    challenge: Type.String({ minLength: 1, maxLength: 64 }),
    code: Type.String({
      minLength: 6,
      maxLength: 32,
      description: "The authenticator app's 6-digit code, or one of the recovery codes (each works once).",
      examples: ['492039'],
    }),
  },
  { examples: [{ challenge: 'k3J…', code: '492039' }] },
);
export type SecondFactorBody = Static<typeof SecondFactorBody>;

export const InvitationParams = Type.Object({ token: LinkToken });
export type InvitationParams = Static<typeof InvitationParams>;
const Purpose = StringEnum(['invite', 'reset_second_factor'], {
  description:
    'invite: a new operator sets a name, a password and a second factor; reset_second_factor: an operator enrols a new second factor.',
});
export const Invitation = Type.Object(
  { email: Type.String({ format: 'email' }), role: Role, purpose: Purpose, expires_at: Timestamp() },
  { title: 'Invitation' },
);
export const InvitationResponse = Success(Invitation, 'Invitation.');

export const EnrolmentBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'Needed for purpose invite.' })),
    password: Type.Optional(
      Type.String({
        maxLength: 128,
        'x-trim': false,
        description: 'Needed for purpose invite: 8-128 characters, not a common password.',
      }),
    ),
    password_confirmation: Type.Optional(Type.String({ maxLength: 128, 'x-trim': false })),
  },
  {
    examples: [
      {
        name: 'Ngozi Okafor',
        password: 'correct-horse-battery-staple',
        password_confirmation: 'correct-horse-battery-staple',
      },
    ],
  },
);
export type EnrolmentBody = Static<typeof EnrolmentBody>;
export const Enrolment = Type.Object(
  {
    secret: Type.String({ description: 'The TOTP secret (base32), for typing into an authenticator app.' }),
    otpauth_url: Type.String({ description: 'otpauth://totp/… for a QR code (SHA-1, 6 digits, 30 s).' }),
  },
  { title: 'SecondFactorEnrolment' },
);
export const EnrolmentResponse = Success(Enrolment, 'Scan the QR code, then confirm with a code.');

export const AcceptBody = Type.Object(
  { code: Type.String({ pattern: '^[0-9]{6}$', description: "The authenticator app's current code." }) },
  { examples: [{ code: '492039' }] },
);
export const AcceptedInvitation = Type.Object(
  {
    ...SessionFields,
    recovery_codes: Type.Array(Type.String(), {
      description:
        'Ten one-time codes for when the authenticator is lost: shown this once, stored only hashed.',
    }),
  },
  { title: 'AcceptedInvitation' },
);
export const AcceptedInvitationResponse = Success(
  AcceptedInvitation,
  'Second factor enrolled; you are signed in.',
);

export const CreateInvitationBody = Type.Object(
  { email: Email(), role: Role },
  { examples: [{ email: 'ngozi@operator.ng', role: 'reviewer' }] },
);
export type CreateInvitationBody = Static<typeof CreateInvitationBody>;
export const CreatedInvitation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String({ format: 'email' }),
    role: Role,
    purpose: Purpose,
    expires_at: Timestamp(),
    url: Type.String({
      description: 'The one-time link to hand to the operator: shown this once, stored only hashed.',
    }),
  },
  { title: 'CreatedInvitation' },
);
export const CreatedInvitationResponse = Success(CreatedInvitation, 'Invitation created.');
export const PendingInvitation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String({ format: 'email' }),
    role: Role,
    purpose: Purpose,
    expires_at: Timestamp(),
    created_at: Timestamp(),
  },
  { title: 'PendingInvitation' },
);
export const InvitationListResponse = Success(Page(PendingInvitation), 'Pending invitations.');
export const ListQuery = PaginationQuery;
export const SignedOutResponse = SuccessNoData('Signed out.');
