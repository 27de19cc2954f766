import { createContext, type ReactNode, useContext } from 'react';
import type { Environment } from './api/partner-types';

/*
 * A dashboard user's role and what it may do (docs/partner-guide.md, "Users and roles"). The server
 * decides and enforces: the session lists the caller's `permissions` in the current environment, and
 * a request the role lacks is refused (403 FORBIDDEN) whatever the page shows. The page only hides or
 * disables what would be refused, and says why.
 */

export type PartnerRole = 'owner' | 'admin' | 'developer' | 'finance' | 'viewer';

/** The access names of the API (each operation declares one). */
export type Access = 'read' | 'onboarding' | 'officers' | 'keys' | 'webhooks' | 'money' | 'users' | 'owner';

export const ROLE_LABELS: Record<PartnerRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  developer: 'Developer',
  finance: 'Finance',
  viewer: 'Viewer',
};

/** One line on each role, where one is chosen (invite, change role). */
export const ROLE_DESCRIPTIONS: Record<PartnerRole, string> = {
  owner: 'Everything, including users and security settings.',
  admin: 'Everything except owners and security settings.',
  developer: 'API keys and webhooks; money in the sandbox only. Onboarding read-only.',
  finance: 'Virtual accounts and transfers, in the sandbox and live. No API keys or webhooks.',
  viewer: 'Sees everything, changes nothing.',
};

export const ROLES = Object.keys(ROLE_LABELS) as PartnerRole[];

export const roleLabel = (role: string): string => ROLE_LABELS[role as PartnerRole] ?? role;

/** What the signed-in user may do, from the session. */
export interface RoleAccess {
  role: PartnerRole | null;
  /** The access names held in the current environment; null when the server named none (all shown). */
  permissions: readonly string[] | null;
  environment: Environment;
}

const RoleContext = createContext<RoleAccess | null>(null);

export function RoleProvider({ value, children }: { value: RoleAccess; children: ReactNode }) {
  return <RoleContext.Provider value={value}>{children}</RoleContext.Provider>;
}

/** Whether the signed-in user's role holds `access`, and if not, why, in a sentence. */
export interface Allowance {
  allowed: boolean;
  /** Why not (null when allowed). */
  reason: string | null;
}

const WHAT: Record<Access, string> = {
  read: 'see this',
  onboarding: 'change the application',
  officers: 'change directors and officers',
  keys: 'manage API keys',
  webhooks: 'change webhooks',
  money: 'move money or change accounts',
  users: 'invite or change users',
  owner: 'change security settings',
};

export function allowance(access: Access, context: RoleAccess | null): Allowance {
  if (!context || context.permissions === null || context.permissions.includes(access)) {
    return { allowed: true, reason: null };
  }
  const role = context.role ? ROLE_LABELS[context.role] : 'Your role';
  if (access === 'money' && context.role === 'developer' && context.environment === 'live') {
    return {
      allowed: false,
      reason: 'Developers move money in the sandbox only: ask an owner, admin or finance user.',
    };
  }
  const askWho = access === 'owner' ? 'an owner' : 'an owner or admin';
  return {
    allowed: false,
    reason: `Your role (${role}) cannot ${WHAT[access]}: ask ${askWho}.`,
  };
}

/** The signed-in user's allowance for `access` (inside the signed-in pages). */
export function useAccess(access: Access): Allowance {
  return allowance(access, useContext(RoleContext));
}

/** The signed-in user's role (null before the server named one). */
export function useRole(): PartnerRole | null {
  return useContext(RoleContext)?.role ?? null;
}
