import type { Environment } from '../environment.js';

/**
 * The roles of a business's dashboard users and what each may do (docs/decisions.md, "Dashboard
 * users and roles"). Every session and partner operation declares the access it needs (route.ts);
 * the auth hook refuses a session whose role lacks it before the body is read. API keys are not
 * people: roles do not apply to them.
 */
export const USER_ROLES = ['owner', 'admin', 'developer', 'finance', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const ACCESS = [
  'read',
  'onboarding',
  'officers',
  'keys',
  'webhooks',
  'money',
  'users',
  'owner',
] as const;
export type Access = (typeof ACCESS)[number];

/** Who holds each access; `sandbox`: only in the sandbox environment. */
const GRANTS: Record<Access, Partial<Record<UserRole, 'always' | 'sandbox'>>> = {
  read: { owner: 'always', admin: 'always', developer: 'always', finance: 'always', viewer: 'always' },
  onboarding: { owner: 'always', admin: 'always' },
  officers: { owner: 'always', admin: 'always' },
  keys: { owner: 'always', admin: 'always', developer: 'always' },
  webhooks: { owner: 'always', admin: 'always', developer: 'always' },
  money: { owner: 'always', admin: 'always', developer: 'sandbox', finance: 'always' },
  users: { owner: 'always', admin: 'always' },
  owner: { owner: 'always' },
};

/** What each access lets its holder do, for the 403 message. */
const ACCESS_WORDS: Record<Access, string> = {
  read: 'read the dashboard',
  onboarding: 'change the onboarding application',
  officers: 'change the directors and officers',
  keys: 'manage API keys',
  webhooks: 'manage webhooks',
  money: 'move money or change accounts',
  users: 'manage dashboard users',
  owner: "change the business's security settings",
};

export function mayAccess(role: UserRole, access: Access, environment: Environment): boolean {
  const grant = GRANTS[access][role];
  return grant === 'always' || (grant === 'sandbox' && environment === 'sandbox');
}

/** The access names a role holds in an environment (the dashboard hides what the role cannot do). */
export const permissionsOf = (role: UserRole, environment: Environment): Access[] =>
  ACCESS.filter((access) => mayAccess(role, access, environment));

/** Why a role is refused an access, naming both (the FORBIDDEN message). */
export function refusal(role: UserRole, access: Access, environment: Environment): string {
  const sandboxOnly = GRANTS[access][role] === 'sandbox';
  return sandboxOnly
    ? `Your role (${role}) may ${ACCESS_WORDS[access]} in the sandbox only, not in ${environment}.`
    : `Your role (${role}) may not ${ACCESS_WORDS[access]} (access "${access}"); ask an owner or admin of your business.`;
}

/**
 * What a dashboard session needs a second factor for (docs/decisions.md, "Dashboard second factor"):
 * `live_money` (the default): `money` routes in live; `everyone`: every route but the session, logout,
 * your own user and enrolling your factor.
 */
export const SECOND_FACTOR_POLICIES = ['live_money', 'everyone'] as const;
export type SecondFactorPolicy = (typeof SECOND_FACTOR_POLICIES)[number];

/** Whether a session made without a second factor is refused an operation (the auth hook). */
export function needsSecondFactor(
  policy: SecondFactorPolicy,
  access: Access,
  environment: Environment,
  exempt: boolean,
): boolean {
  if (policy === 'everyone' && !exempt) return true;
  return access === 'money' && environment === 'live';
}
