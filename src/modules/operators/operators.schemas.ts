import { type Static, Type } from '@sinclair/typebox';
import { OPERATOR_ROLES } from '../../platform/auth/credentials.js';
import { PASSWORD_MAX_LENGTH } from '../../platform/auth/password-rules.js';
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
    second_factor: StringEnum(['enrolled', 'locked', 'reset_pending'], {
      description:
        'locked: 20 wrong codes in a row locked it (sign-in refused) until an admin resets it; reset_pending: an admin reset it; the operator enrols a new one through the link given.',
    }),
    second_factor_locked_at: Nullable(
      Timestamp('When wrong codes locked the second factor; null unless locked.'),
    ),
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
    password: Type.String({
      maxLength: PASSWORD_MAX_LENGTH,
      'x-trim': false,
      description: 'Taken exactly as sent.',
    }),
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

/** The link's token travels in a body, never in a path or query, so no access log or proxy records it. */
export const InvitationTokenBody = Type.Object(
  { token: LinkToken },
  { examples: [{ token: 'R2V0IHRoZSBjb2RlIGZyb20gdGhlIGVtYWlsIGxpbms' }] },
);
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
    token: LinkToken,
    name: Type.Optional(Type.String({ maxLength: 100, description: 'Needed for purpose invite.' })),
    password: Type.Optional(
      Type.String({
        maxLength: PASSWORD_MAX_LENGTH,
        'x-trim': false,
        description:
          "Purpose invite: the new operator's password, 8-128 characters, not a common password. Purpose " +
          "reset_second_factor: the operator's current password (the link alone does not prove who opens it).",
      }),
    ),
    password_confirmation: Type.Optional(Type.String({ maxLength: PASSWORD_MAX_LENGTH, 'x-trim': false })),
  },
  {
    examples: [
      {
        token: 'R2V0IHRoZSBjb2RlIGZyb20gdGhlIGVtYWlsIGxpbms',
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
  {
    token: LinkToken,
    code: Type.String({ pattern: '^[0-9]{6}$', description: "The authenticator app's current code." }),
  },
  { examples: [{ token: 'R2V0IHRoZSBjb2RlIGZyb20gdGhlIGVtYWlsIGxpbms', code: '492039' }] },
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
export const SessionEndedResponse = SuccessNoData('Session ended.');

export const PasswordChangeBody = Type.Object(
  {
    current_password: Type.String({
      maxLength: PASSWORD_MAX_LENGTH,
      'x-trim': false,
      description: 'Taken exactly as sent.',
    }),
    password: Type.String({
      maxLength: PASSWORD_MAX_LENGTH,
      'x-trim': false,
      description: '8-128 characters, not a common password, not the e-mail, not the current one.',
    }),
    password_confirmation: Type.String({ maxLength: PASSWORD_MAX_LENGTH, 'x-trim': false }),
  },
  {
    examples: [
      {
        current_password: 'correct-horse-battery-staple',
        password: 'Harmattan-Lagoon-Cassava-19',
        password_confirmation: 'Harmattan-Lagoon-Cassava-19',
      },
    ],
  },
);
const SessionsEnded = Type.Object(
  { sessions_ended: Type.Integer({ description: 'How many other sessions of yours ended.' }) },
  { title: 'SessionsEnded' },
);
export const PasswordChangedResponse = Success(SessionsEnded, 'Password changed.');
export const SessionsEndedResponse = Success(SessionsEnded, 'Your other sessions ended.');

export const OwnSession = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    current: Type.Boolean({ description: 'The session making this request.' }),
    ip: Nullable(Type.String({ description: 'The address it signed in from.' })),
    user_agent: Nullable(Type.String({ description: 'The browser it signed in with.' })),
    created_at: Timestamp('When it signed in.'),
    last_seen_at: Timestamp('Its last request, to the minute.'),
    expires_at: Timestamp('8 hours after sign-in, unless 30 minutes idle end it first.'),
  },
  { title: 'OwnOperatorSession' },
);
export const OwnSessionsResponse = Success(
  Type.Object({ items: Type.Array(OwnSession) }, { title: 'OwnOperatorSessions' }),
  'Your sessions.',
);
export const SessionParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
