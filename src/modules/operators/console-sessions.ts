import type { Kysely } from 'kysely';
import type { RequestMeta } from '../../platform/audit/audit.repository.js';
import { toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { antiForgeryToken } from '../../platform/http/csrf.js';
import * as repo from './operators.repository.js';

const MINUTE = 60 * 1000;
/** An operator session lasts at most 8 hours and ends after 30 minutes idle (docs/operator-guide.md). */
export const SESSION_MS = 8 * 60 * MINUTE;
export const IDLE_MS = 30 * MINUTE;
const USER_AGENT_MAX = 256;

/** Where a request came from: the audit's request id and IP, and the browser that sent it. */
export interface ClientMeta extends RequestMeta {
  userAgent: string | null;
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;

/** Console sessions: opened after both factors, carried by a cookie, each with its anti-forgery token. */
export function createConsoleSessions({ db, keys }: { db: Kysely<Database>; keys: KeyRing }) {
  return {
    view(
      operator: Pick<repo.OperatorRow, 'id' | 'email' | 'name' | 'role'>,
      token: string,
      expiresAt: number,
    ) {
      return {
        operator: { id: operator.id, email: operator.email, name: operator.name, role: operator.role },
        csrf_token: antiForgeryToken(keys.csrf, token),
        expires_at: toIso(expiresAt),
        idle_timeout_seconds: IDLE_MS / 1000,
      };
    },

    /** A new session for an operator who passed both factors: the token goes into the cookie. */
    async open(operatorId: string, now: number, client: ClientMeta) {
      const token = randomToken();
      const expiresAt = now + SESSION_MS;
      await repo.insertSession(db, {
        token_hash: sha256(token),
        id: newId(),
        operator_id: operatorId,
        last_seen_at: now,
        expires_at: expiresAt,
        ip: client.ip,
        user_agent: client.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
        created_at: now,
      });
      return { token, expiresAt };
    },
  };
}
