import type { Kysely } from 'kysely';
import { actorOf, type RequestMeta, userActor } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { SessionCredential } from '../../platform/auth/credentials.js';
import type { SecondFactorPolicy } from '../../platform/auth/roles.js';
import {
  invalidCode,
  isTotpCode,
  newTotpSecret,
  otpauthUrl,
  RECOVERY_CODES,
  recoveryCode,
  recoveryHasher,
  reusedCode,
  SECOND_FACTOR_LOCK_AFTER,
  SECOND_FACTOR_TRIES,
  totpStep,
  wrongRecoveryCode,
} from '../../platform/auth/totp.js';
import { type Clock, toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { verifyPassword } from '../../platform/crypto/passwords.js';
import { decrypt, encrypt } from '../../platform/crypto/secret-box.js';
import { sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { enforceLimit } from '../../platform/limits/limits.js';
import { type AccountsService, lockedUserFactor } from './accounts.service.js';
import * as repo from './second-factor.repository.js';

const ISSUER = 'BaaS Dashboard';
/** Password checks per user in 15 minutes when turning the factor off. */
const PASSWORD_ATTEMPTS = { max: 10, windowMs: 15 * 60 * 1000 };

export interface SecondFactorDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  openSession: AccountsService['openSession'];
}

export type SecondFactorService = ReturnType<typeof createSecondFactorService>;

const notAUser = () => new AppError('NOT_FOUND', { message: 'No such user in your business.' });

/**
 * A dashboard user's optional second factor (docs/decisions.md, "Dashboard second factor"): the
 * operators' TOTP and recovery codes (platform/auth/totp.ts), enrolled by the user, turned off with
 * the password, reset by an owner or admin; the login's second step; the business's policy.
 */
export function createSecondFactorService({ db, write, clock, keys, openSession }: SecondFactorDeps) {
  const recoveryHash = recoveryHasher(keys);

  async function ownFactor(session: SessionCredential) {
    const row = await repo.findFactor(db, session.partnerId, session.userId);
    if (!row) throw new AppError('UNAUTHENTICATED');
    return row;
  }

  /** Whether the code is right: a TOTP code of a step not used before, or an unused recovery code. */
  async function checkCode(
    user: { id: string; email: string; totp_secret: string | null },
    input: { code?: string | undefined; recovery_code?: string | undefined },
    now: number,
  ) {
    if (input.code !== undefined) {
      const secret = decrypt(keys.encryption, user.totp_secret!);
      const step = isTotpCode(input.code) ? totpStep(ISSUER, user.email, secret, input.code, now) : undefined;
      if (step === undefined) return { method: 'totp' as const, failure: 'wrong_code' as const };
      // Only a step later than the last accepted, in one conditional UPDATE: a code works once.
      if (!(await repo.takeTotpStep(db, user.id, step)))
        return { method: 'totp' as const, failure: 'code_reused' as const };
      return { method: 'totp' as const };
    }
    if (!(await repo.useRecoveryCode(db, user.id, recoveryHash(input.recovery_code ?? ''), now)))
      return { method: 'recovery_code' as const, failure: 'wrong_recovery_code' as const };
    return { method: 'recovery_code' as const };
  }

  /** Records a wrong code; the check that spends the user's last one locks the factor. */
  async function failCode(
    user: { id: string; partner_id: number },
    reason: string,
    meta: RequestMeta,
    now: number,
  ) {
    return write({ actor: userActor(user.partner_id, user.id), meta, now }, async ({ trx, audit }) => {
      audit({
        action: 'user.second_factor_failed',
        targetType: 'user',
        targetId: user.id,
        metadata: { reason },
      });
      if (!(await repo.lockSpentFactor(trx, user.id, SECOND_FACTOR_LOCK_AFTER, now))) return false;
      await repo.deleteSignInsOf(trx, user.id);
      audit({
        action: 'user.second_factor_locked',
        targetType: 'user',
        targetId: user.id,
        metadata: { consecutive_failures: SECOND_FACTOR_LOCK_AFTER },
      });
      return true;
    });
  }

  return {
    /** The caller's own factor: on or not, a pending enrolment, recovery codes left, the policy. */
    async status(session: SessionCredential) {
      const row = await ownFactor(session);
      const enabled = row.totp_secret !== null;
      return {
        enabled,
        pending: !enabled && row.totp_pending_secret !== null,
        enrolled_at: row.second_factor_enrolled_at === null ? null : toIso(row.second_factor_enrolled_at),
        locked: enabled && row.second_factor_locked_at !== null,
        recovery_codes_left: enabled ? await repo.countUnusedRecoveryCodes(db, row.id) : 0,
        this_session: session.secondFactor,
        policy: session.secondFactorPolicy,
      };
    },

    /** Step one of enrolling: a new secret for the authenticator app, pending until a code confirms it. */
    async start(session: SessionCredential, meta: RequestMeta) {
      const row = await ownFactor(session);
      const secret = newTotpSecret();
      // The answer is the write's result: an Idempotency-Key records it with the change.
      return write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
        if (!(await repo.startEnrolment(trx, row.id, encrypt(keys.encryption, secret), now)))
          throw new AppError('SECOND_FACTOR_ENROLLED');
        audit({ action: 'user.second_factor_enrolment_started', targetType: 'user', targetId: row.id });
        return { secret, otpauth_url: otpauthUrl(ISSUER, row.email, secret) };
      });
    },

    /** Step two: the app's first code turns the pending secret into the factor; ten recovery codes, shown once. */
    async confirm(session: SessionCredential, code: string, meta: RequestMeta) {
      const row = await ownFactor(session);
      if (row.totp_secret !== null) throw new AppError('SECOND_FACTOR_ENROLLED');
      if (row.totp_pending_secret === null) throw new AppError('SETUP_NOT_STARTED');
      const now = clock.now();
      const secret = decrypt(keys.encryption, row.totp_pending_secret);
      const step = isTotpCode(code) ? totpStep(ISSUER, row.email, secret, code, now) : undefined;
      if (step === undefined) throw invalidCode();
      const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
      return write({ actor: actorOf(session), meta, now }, async ({ trx, audit }) => {
        if (!(await repo.confirmEnrolment(trx, row.id, row.totp_pending_secret!, step, now)))
          throw new AppError('SETUP_NOT_STARTED', {
            message: 'This enrolment was replaced or already confirmed: start again.',
          });
        await repo.replaceRecoveryCodes(trx, row.id, codes.map(recoveryHash), now);
        audit({
          action: 'user.second_factor_enrolled',
          targetType: 'user',
          targetId: row.id,
          metadata: { email: row.email },
        });
        return { enrolled_at: toIso(now), recovery_codes: codes };
      });
    },

    /** Turns the caller's own factor off, given their password; refused while the business requires one. */
    async disable(session: SessionCredential, password: string, meta: RequestMeta) {
      const row = await ownFactor(session);
      const now = clock.now();
      await enforceLimit(db, `dashboard-password:${row.id}`, now, PASSWORD_ATTEMPTS);
      if (row.totp_secret === null)
        throw new AppError('NOT_FOUND', { message: 'You have no second factor to turn off.' });
      if (!(await verifyPassword(row.password_hash, password))) {
        await write.batch({ actor: actorOf(session), meta, now }, ({ audit }) =>
          audit({
            action: 'user.second_factor_disable_failed',
            targetType: 'user',
            targetId: row.id,
            metadata: { reason: 'wrong_password' },
          }),
        );
        throw validationError({ password: ['is not your password'] });
      }
      await write({ actor: actorOf(session), meta, now }, async ({ trx, audit }) => {
        if (!(await repo.disableFactor(trx, row.id, now))) {
          if ((await repo.policyOf(trx, session.partnerId)) === 'everyone')
            throw new AppError('SECOND_FACTOR_ENFORCED');
          throw new AppError('NOT_FOUND', { message: 'You have no second factor to turn off.' });
        }
        await repo.replaceRecoveryCodes(trx, row.id, [], now);
        await repo.deleteSignInsOf(trx, row.id);
        audit({ action: 'user.second_factor_disabled', targetType: 'user', targetId: row.id });
      });
    },

    /**
     * An owner or admin clears another user's factor (a lost phone, a lock): the user logs in with the
     * password alone and may enrol again. An admin may not reset an owner's; nobody resets their own
     * here (turning your own off takes your password).
     */
    async reset(session: SessionCredential, userId: string, meta: RequestMeta) {
      if (userId === session.userId)
        throw new AppError('FORBIDDEN', {
          message: 'Turn your own second factor off with your password (DELETE users/me/second-factor).',
        });
      return write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
        if (!(await repo.resetFactor(trx, session.partnerId, userId, session.role === 'owner', now))) {
          const target = await repo.findFactor(trx, session.partnerId, userId);
          if (!target) throw notAUser();
          throw new AppError('FORBIDDEN', {
            message: "An admin cannot reset an owner's second factor: ask an owner.",
          });
        }
        await repo.replaceRecoveryCodes(trx, userId, [], now);
        await repo.deleteSignInsOf(trx, userId);
        const target = await repo.findFactor(trx, session.partnerId, userId);
        audit({
          action: 'user.second_factor_reset',
          targetType: 'user',
          targetId: userId,
          metadata: { email: target?.email ?? null, name: target?.name ?? null },
        });
        return { id: userId, second_factor: false as const };
      });
    },

    /**
     * The login's second step: the authenticator's code (one step either way; a step already used is
     * refused) or a recovery code (each once). Each check is reserved before the code is looked at, on
     * the challenge (SECOND_FACTOR_TRIES, then the password again) and on the user
     * (SECOND_FACTOR_LOCK_AFTER wrong in a row lock the factor until an owner or admin resets it).
     */
    async login(
      input: { challenge_token: string; code?: string | undefined; recovery_code?: string | undefined },
      meta: RequestMeta,
    ) {
      if ((input.code === undefined) === (input.recovery_code === undefined))
        throw validationError({ code: ['send either code or recovery_code'] });
      const now = clock.now();
      const challengeHash = sha256(input.challenge_token);
      const pending = await repo.reserveSignInAttempt(db, challengeHash, now, SECOND_FACTOR_TRIES);
      if (!pending) {
        const found = await repo.findSignIn(db, challengeHash);
        if (found && found.expires_at > now)
          throw new AppError('OTP_ATTEMPTS_EXCEEDED', {
            message: 'Too many wrong codes: log in with your password again.',
          });
        throw new AppError('SIGN_IN_EXPIRED', {
          message: 'The login took too long or was already used: log in with your password again.',
        });
      }
      const user = await repo.reserveFactorCheck(db, pending.user_id, SECOND_FACTOR_LOCK_AFTER);
      if (!user) {
        await repo.deleteSignIn(db, challengeHash);
        throw lockedUserFactor();
      }
      const checked = await checkCode(user, input, now);
      if (checked.failure) {
        if (await failCode(user, checked.failure, meta, now)) throw lockedUserFactor();
        if (checked.failure === 'wrong_recovery_code') throw wrongRecoveryCode();
        throw checked.failure === 'code_reused' ? reusedCode() : invalidCode();
      }
      if (!(await repo.deleteSignIn(db, challengeHash)))
        throw new AppError('SIGN_IN_EXPIRED', {
          message: 'This login was already completed: log in with your password again.',
        });
      return write({ actor: userActor(user.partner_id, user.id), meta, now }, async ({ trx, audit }) => {
        await repo.clearFailures(trx, user.id);
        return openSession(trx, audit, { id: user.id, partnerId: user.partner_id }, now, checked.method);
      });
    },

    async policy(session: SessionCredential) {
      return { second_factor: await repo.policyOf(db, session.partnerId) };
    },

    /**
     * The owner's setting. Requiring a factor of everyone takes a session made with one (the owner
     * would otherwise lock themselves out of everything but enrolling).
     */
    async setPolicy(session: SessionCredential, policy: SecondFactorPolicy, meta: RequestMeta) {
      if (policy === 'everyone' && !session.secondFactor) throw new AppError('SECOND_FACTOR_REQUIRED');
      await write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
        const before = await repo.policyOf(trx, session.partnerId);
        await repo.setPolicy(trx, session.partnerId, policy, now);
        audit({
          action: 'partner.security_changed',
          targetType: 'partner',
          targetId: String(session.partnerId),
          metadata: { second_factor: { from: before, to: policy } },
        });
      });
      return { second_factor: policy };
    },
  };
}
