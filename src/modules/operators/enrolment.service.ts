import type { Kysely, Transaction } from 'kysely';
import type { AuditActor, RequestMeta } from '../../platform/audit/audit.repository.js';
import { anonymousActor, operatorActor } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { newPasswordErrors } from '../../platform/auth/password-rules.js';
import { recoveryHasher } from '../../platform/auth/totp.js';
import { type Clock, toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { hashPassword, verifyPassword } from '../../platform/crypto/passwords.js';
import { decrypt, encrypt } from '../../platform/crypto/secret-box.js';
import { newId, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, type FieldErrors, validationError } from '../../platform/errors/errors.js';
import { enforceLimit } from '../../platform/limits/limits.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import type { ClientMeta, ConsoleSessions } from './console-sessions.js';
import { insertInvitation, openInvitation } from './invitations.js';
import * as repo from './operators.repository.js';
import type { EnrolmentBody, OperatorRole } from './operators.schemas.js';
import {
  invalidCode,
  newTotpSecret,
  otpauthUrl,
  PASSWORD_ATTEMPTS,
  passwordAttemptKey,
  RECOVERY_CODES,
  recoveryCode,
  totpStep,
} from './second-factor.js';

export interface OperatorsDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  /** Where the console is reached: set-up links start with it. */
  publicUrl: string;
}

/** Recovery codes are hashed as the dashboard's users' are (platform/auth/totp.ts). */
export { recoveryHasher } from '../../platform/auth/totp.js';

export const requireAdmin = (operator: OperatorCredential): void => {
  if (operator.kind === 'operator' && operator.role !== 'admin') {
    throw new AppError('FORBIDDEN', { message: 'Only an admin can manage operators.' });
  }
};

export const creatorOf = (operator: OperatorCredential): string | null =>
  operator.kind === 'operator' ? operator.operatorId : null;

/**
 * Becoming an operator, or enrolling a new second factor after a reset: one-time invitations, the
 * authenticator's secret, its first code, the recovery codes.
 */
export function createEnrolmentService(deps: OperatorsDeps & { sessions: ConsoleSessions }) {
  const { db, write, clock, keys, publicUrl, sessions } = deps;
  const recoveryHash = recoveryHasher(keys);

  /** What step one keeps on a new operator's invitation: the name and the password's hash. */
  async function newOperatorFields(row: repo.InvitationRow, input: EnrolmentBody) {
    const errors: FieldErrors = newPasswordErrors(input, row.email);
    if (!input.name) errors['name'] = ['is required'];
    if (Object.keys(errors).length > 0) throw validationError(errors);
    return { pending_name: input.name!, pending_password_hash: await hashPassword(input.password!) };
  }

  /**
   * A reset's link alone does not make its holder the operator (the admin who made it holds it too):
   * the operator's own password must come with it, counted with its sign-in attempts.
   */
  async function assertOwnPassword(row: repo.InvitationRow, password: string | undefined, meta: RequestMeta) {
    if (password === undefined) throw validationError({ password: ['is required: enter your password'] });
    const now = clock.now();
    await enforceLimit(db, passwordAttemptKey(row.email), now, PASSWORD_ATTEMPTS);
    const operator = row.operator_id === null ? undefined : await repo.findOperator(db, row.operator_id);
    if (operator?.status !== 'active')
      throw new AppError('FORBIDDEN', { message: 'This operator is deactivated.' });
    if (await verifyPassword(operator.password_hash, password)) return;
    await write.batch({ actor: anonymousActor(null), meta, now }, ({ audit }) =>
      audit({
        action: 'operator.sign_in_failed',
        targetType: 'operator',
        targetId: operator.id,
        metadata: { email: row.email, reason: 'reset_wrong_password' },
      }),
    );
    throw validationError({ password: ['is not your password'] });
  }

  /**
   * A new operator with the confirmed second factor (an invitation), or an active operator's factor
   * replaced by it (a reset); called under the invitation's lock.
   */
  async function saveSecondFactor(
    trx: Transaction<Database>,
    row: repo.InvitationRow,
    operatorId: string,
    confirmed: { secret: string; step: number },
    now: number,
  ): Promise<void> {
    const factor = {
      totp_secret: encrypt(keys.encryption, confirmed.secret),
      totp_last_step: confirmed.step,
      second_factor_failures: 0,
      second_factor_locked_at: null,
      last_sign_in_at: now,
      updated_at: now,
    };
    if (row.purpose === 'invite') {
      if (!row.pending_name || !row.pending_password_hash) throw new AppError('SETUP_NOT_STARTED');
      await repo.insertOperator(
        trx,
        extend(factor, {
          id: operatorId,
          email: row.email,
          name: row.pending_name,
          role: row.role,
          status: 'active' as const,
          password_hash: row.pending_password_hash,
          created_at: now,
        }),
      );
      return;
    }
    const current = await repo.lockOperator(trx, operatorId);
    if (current?.status !== 'active')
      throw new AppError('FORBIDDEN', { message: 'This operator is deactivated.' });
    await repo.updateOperator(trx, operatorId, factor);
  }

  return {
    /** An admin invites a new operator (or the command line, `operator` null, invites the first admin). */
    async invite(
      operator: OperatorCredential | null,
      input: { email: string; role: OperatorRole },
      meta: RequestMeta | null,
    ) {
      if (operator) requireAdmin(operator);
      const existing = await repo.findOperatorByEmail(db, input.email);
      if (existing) throw validationError({ email: ['is already an operator'] });
      const actor: AuditActor = operator
        ? operatorActor(null, operator)
        : { partnerId: null, actorType: 'system', actorId: 'cli' };
      return write({ actor, meta }, ({ trx, audit, now }) =>
        insertInvitation(
          trx,
          audit,
          publicUrl,
          extend(input, { purpose: 'invite' as const, createdBy: operator ? creatorOf(operator) : null }),
          now,
        ),
      );
    },

    async listInvitations(
      operator: OperatorCredential,
      query: { limit: number; cursor?: string | undefined },
    ) {
      requireAdmin(operator);
      const cursor = keysetCursor(keys.cursor, 'operator_invitations', 'operator', 'string');
      const rows = await repo.listOpenInvitations(db, clock.now(), cursor.decode(query.cursor), query.limit);
      const page = cursor.page(rows, query.limit, (row) => row.id);
      return {
        next_cursor: page.next_cursor,
        items: page.items.map((row) => ({
          id: row.id,
          email: row.email,
          role: row.role,
          purpose: row.purpose,
          expires_at: toIso(row.expires_at),
          created_at: toIso(row.created_at),
        })),
      };
    },

    async invitation(token: string) {
      const row = openInvitation(await repo.findInvitation(db, sha256(token)), clock.now());
      return { email: row.email, role: row.role, purpose: row.purpose, expires_at: toIso(row.expires_at) };
    },

    /**
     * Step one of a set-up: a new operator's name and password (kept on the invitation until the
     * second factor is confirmed), or a reset operator's own password; then a fresh TOTP secret for
     * the authenticator app. Asking again draws a new secret.
     */
    async startEnrolment(token: string, input: EnrolmentBody, meta: RequestMeta) {
      const row = openInvitation(await repo.findInvitation(db, sha256(token)), clock.now());
      let pending = {};
      if (row.purpose === 'invite') pending = await newOperatorFields(row, input);
      else await assertOwnPassword(row, input.password, meta);
      const secret = newTotpSecret();
      await repo.updateInvitation(
        db,
        row.id,
        extend(pending, { pending_totp_secret: encrypt(keys.encryption, secret) }),
      );
      return { secret, otpauth_url: otpauthUrl(row.email, secret) };
    },

    /**
     * Step two: the authenticator's code proves the secret was taken. The operator is created (or
     * its second factor replaced), gets ten recovery codes and is signed in. The invitation is used up.
     */
    async acceptInvitation(token: string, code: string, client: ClientMeta) {
      const tokenHash = sha256(token);
      const now = clock.now();
      const before = openInvitation(await repo.findInvitation(db, tokenHash), now);
      if (before.pending_totp_secret === null) throw new AppError('SETUP_NOT_STARTED');
      const secret = decrypt(keys.encryption, before.pending_totp_secret);
      const step = totpStep(before.email, secret, code, now);
      if (step === undefined) throw invalidCode();
      const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
      const operatorId = before.operator_id ?? newId();
      const operator = await write(
        {
          actor: { partnerId: null, actorType: 'operator', actorId: operatorId },
          meta: client,
          now,
          // The address became an operator through another invitation meanwhile.
          onUniqueViolation: () => validationError({ email: ['is already an operator'] }),
        },
        async ({ trx, audit }) => {
          const row = openInvitation(await repo.lockInvitation(trx, tokenHash), now);
          await saveSecondFactor(trx, row, operatorId, { secret, step }, now);
          await repo.updateInvitation(trx, row.id, {
            accepted_at: now,
            pending_password_hash: null,
            pending_totp_secret: null,
          });
          await repo.insertRecoveryCodes(trx, operatorId, codes.map(recoveryHash), now);
          audit({
            action: row.purpose === 'invite' ? 'operator.created' : 'operator.second_factor_enrolled',
            targetType: 'operator',
            targetId: operatorId,
            metadata: { email: row.email, role: row.role },
          });
          return (await repo.lockOperator(trx, operatorId))!;
        },
      );
      const session = await sessions.open(operator.id, now, client);
      return {
        token: session.token,
        view: extend(sessions.view(operator, session.token, session.expiresAt), { recovery_codes: codes }),
      };
    },
  };
}
