import type { Environment } from '../environment.js';
import type { SecondFactorPolicy, UserRole } from './roles.js';

/** Who is calling: a partner's dashboard session or one of its API keys, each bound to an environment. */
export interface SessionCredential {
  kind: 'session';
  sessionId: string;
  partnerId: number;
  /** The dashboard user the session belongs to, and their role (what the session may do). */
  userId: string;
  userName: string;
  role: UserRole;
  /** Fixed at registration: read with the credential, it saves a lookup where it is shown. */
  businessName: string;
  environment: Environment;
  /** The operator suspended the partner: a live session may then only leave live or log out. */
  partnerSuspended: boolean;
  /** The login that made the session checked the user's second factor. */
  secondFactor: boolean;
  /** What the business needs a second factor for (the auth hook refuses a session without one). */
  secondFactorPolicy: SecondFactorPolicy;
}

export interface ApiKeyCredential {
  kind: 'api_key';
  apiKeyId: string;
  partnerId: number;
  businessName: string;
  environment: Environment;
  /**
   * Served from the keys verified in the last minute, without a lookup: only on a route whose write
   * checks the key again in its own statement (`partnerIdOf`), so a revocation still holds at once.
   */
  cached: boolean;
}

export type PartnerCredential = SessionCredential | ApiKeyCredential;

/** The partner and environment of a credential as one key (binds cursors to whose list they page). */
export const scopeKey = (credential: PartnerCredential): string =>
  `${credential.partnerId}:${credential.environment}`;

/** What partner-owned data a credential sees: its partner's, in its environment. */
export const scopeOf = (credential: PartnerCredential) => ({
  partnerId: credential.partnerId,
  environment: credential.environment,
});

export const OPERATOR_ROLES = ['reviewer', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/**
 * Who acts in the back office: ADMIN_API_KEY (automation, every right), or an operator signed in to
 * the console with a session cookie, whose role decides what it may do.
 */
export type OperatorCredential =
  | { kind: 'admin_api_key' }
  | {
      kind: 'operator';
      operatorId: string;
      email: string;
      name: string;
      role: OperatorRole;
      sessionId: string;
    };
