import { type Static, Type } from '@sinclair/typebox';
import { PASSWORD_MAX_LENGTH } from '../../platform/auth/password-rules.js';
import { ACCESS, USER_ROLES } from '../../platform/auth/roles.js';
import { Email, Nullable, StringEnum, Success, Timestamp } from '../../platform/http/schemas.js';

export const Role = StringEnum(USER_ROLES, {
  description:
    'owner: everything, at least one always; admin: everything but ownership and owners; developer: API keys, ' +
    'webhooks, events, sandbox money (live money read-only); finance: accounts, transfers, statements (no keys); ' +
    'viewer: read-only.',
});

const Permissions = Type.Array(StringEnum(ACCESS), {
  description:
    'The access names the role holds in the current environment (read, onboarding, officers, keys, webhooks, ' +
    'money, users, owner): the dashboard hides what the role cannot do.',
});

const Person = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() });

export const UserView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String({ examples: ['ada@acme.ng'] }),
    name: Type.String({ examples: ['Ada Obi'] }),
    role: Role,
    is_you: Type.Boolean({ description: 'This user is the caller.' }),
    created_at: Timestamp(),
    last_login_at: Nullable(Timestamp()),
    invited_by: Nullable(
      Type.Object(Person.properties, { description: 'Who invited them; null for the registering owner.' }),
    ),
  },
  { title: 'DashboardUser' },
);

export const UsersResponse = Success(Type.Array(UserView), 'Users.');
export const UserResponse = Success(UserView, 'User.');
export const MeResponse = Success(
  Type.Object({ ...UserView.properties, permissions: Permissions }, { title: 'DashboardUserMe' }),
  'You.',
);

export const UserParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const ChangeRoleBody = Type.Object({ role: Role }, { examples: [{ role: 'developer' }] });

export const InvitationView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String({ examples: ['bola@acme.ng'] }),
    role: Role,
    status: StringEnum(['pending', 'accepted', 'revoked', 'expired']),
    expires_at: Timestamp(),
    created_at: Timestamp('When it was sent (last resent).'),
    invited_by: Type.Object(Person.properties, { description: 'Who invited (or last resent).' }),
  },
  { title: 'DashboardInvitation' },
);

export const InvitationsResponse = Success(Type.Array(InvitationView), 'Invitations.');
export const InvitationResponse = Success(InvitationView, 'Invitation.');
export const InvitationParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const InviteBody = Type.Object(
  {
    email: Email({ description: 'Whom to invite; may not be a dashboard user of any business yet.' }),
    role: Role,
  },
  { examples: [{ email: 'bola@acme.ng', role: 'developer' }] },
);
export type InviteBody = Static<typeof InviteBody>;

const Token = Type.String({
  minLength: 1,
  maxLength: 512,
  'x-trim': false,
  description: 'The token of the invitation link (after #token= in its fragment).',
});

export const PreviewBody = Type.Object({ token: Token });
export const PreviewResponse = Success(
  Type.Object(
    {
      business_name: Type.String(),
      email: Type.String(),
      role: Role,
      expires_at: Timestamp(),
    },
    { title: 'DashboardInvitationPreview' },
  ),
  'Invitation.',
);

export const AcceptBody = Type.Object(
  {
    token: Token,
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Your name, as colleagues and the audit trail see it.',
    }),
    password: Type.String({
      maxLength: PASSWORD_MAX_LENGTH,
      'x-trim': false,
      description:
        '8-128 characters counted after Unicode normalisation (NFKC), as at registration; one of the few thousand most common passwords is refused.',
    }),
    password_confirmation: Type.String({
      maxLength: 128,
      'x-trim': false,
      description: 'Must equal password.',
    }),
    session: Type.Optional(
      StringEnum(['bearer', 'cookie'], { description: 'As for login: bearer (default) or cookie.' }),
    ),
  },
  {
    examples: [
      {
        token: 'q3Zb1Jx1m0b6v0m8b1C6i3b2Xq0D8Yw4lY2oZ3g5m9A',
        name: 'Bola Ade',
        password: 'correct-horse-battery-staple',
        password_confirmation: 'correct-horse-battery-staple',
      },
    ],
  },
);
export type AcceptBody = Static<typeof AcceptBody>;
