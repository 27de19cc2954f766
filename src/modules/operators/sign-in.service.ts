import { anonymousActor, operatorActor, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { newPasswordErrors } from '../../platform/auth/password-rules.js';
import { toIso } from '../../platform/clock.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/crypto/passwords.js';
import { decrypt } from '../../platform/crypto/secret-box.js';
import { randomToken, sha256 } from '../../platform/crypto/tokens.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { enforceLimit } from '../../platform/limits/limits.js';
import { type ClientMeta, type ConsoleSessions, IDLE_MS } from './console-sessions.js';
import { type OperatorsDeps, recoveryHasher } from './enrolment.service.js';
import * as repo from './operators.repository.js';
import {
  invalidCode,
  isTotpCode,
  lockedSecondFactor,
  PASSWORD_ATTEMPTS,
  passwordAttemptKey,
  SECOND_FACTOR_LOCK_AFTER,
  SECOND_FACTOR_TRIES,
  totpStep,
} from './second-factor.js';

const MINUTE = 60 * 1000;
/** last_seen_at is moved at most once a minute: idleness is measured to the minute. */
const TOUCH_EVERY_MS = MINUTE;
const CHALLENGE_MS = 5 * MINUTE;
/** The sessions list shows the newest this many. */
const SESSIONS_SHOWN = 100;

const isLocked = (operator: Pick<repo.OperatorRow, 'second_factor_locked_at' | 'second_factor_failures'>) =>
  operator.second_factor_locked_at !== null || operator.second_factor_failures >= SECOND_FACTOR_LOCK_AFTER;

/** A person of the operator (not ADMIN_API_KEY, which has no password or session of its own). */
function personOf(operator: OperatorCredential) {
  if (operator.kind !== 'operator') {
    throw new AppError('FORBIDDEN', {
      message: 'ADMIN_API_KEY has no password or sessions: sign in to the console as an operator.',
    });
  }
  return operator;
}

/** Signing in with two factors, the console session, and what an operator does with its own account. */
export function createSignInService(deps: OperatorsDeps & { sessions: ConsoleSessions }) {
  const { db, write, clock, keys, sessions } = deps;
  const recoveryHash = recoveryHasher(keys);

  /** Whether the code is right: the TOTP code of a step not used before, or an unused recovery code. */
  async function checkCode(operator: repo.OperatorRow, code: string, now: number) {
    if (isTotpCode(code)) {
      const secret = decrypt(keys.encryption, operator.totp_secret!);
      const step = totpStep(operator.email, secret, code, now);
      if (step === undefined) return { method: 'totp' as const, failure: 'wrong_code' as const };
      // Only a step later than the last accepted, in one conditional UPDATE: a code works once.
      if (!(await repo.takeTotpStep(db, operator.id, step)))
        return { method: 'totp' as const, failure: 'code_reused' as const };
      return { method: 'totp' as const };
    }
    if (!(await repo.useRecoveryCode(db, operator.id, recoveryHash(code), now)))
      return { method: 'recovery_code' as const, failure: 'wrong_recovery_code' as const };
    return { method: 'recovery_code' as const };
  }

  /** Records a wrong code; the one that spends the operator's last check locks its factor. */
  async function failCode(operator: repo.OperatorRow, reason: string, meta: RequestMeta, now: number) {
    const actor = { partnerId: null, actorType: 'operator' as const, actorId: operator.id };
    return write({ actor, meta, now }, async ({ trx, audit }) => {
      audit({
        action: 'operator.second_factor_failed',
        targetType: 'operator',
        targetId: operator.id,
        metadata: { reason },
      });
      if (!(await repo.lockSpentSecondFactor(trx, operator.id, SECOND_FACTOR_LOCK_AFTER, now))) return false;
      await repo.deleteSignInsOf(trx, operator.id);
      audit({
        action: 'operator.second_factor_locked',
        targetType: 'operator',
        targetId: operator.id,
        metadata: { email: operator.email, consecutive_failures: SECOND_FACTOR_LOCK_AFTER },
      });
      return true;
    });
  }

  return {
    /**
     * Step one of signing in. The attempt is counted before the password is checked (10 per address
     * in 15 minutes); an unknown address costs the same argon2id verification as a wrong password.
     */
    async signInWithPassword(input: { email: string; password: string }, meta: RequestMeta) {
      const now = clock.now();
      await enforceLimit(db, passwordAttemptKey(input.email), now, PASSWORD_ATTEMPTS);
      const operator = await repo.findOperatorByEmail(db, input.email);
      const passwordOk = await verifyPassword(
        operator?.password_hash ?? (await dummyPasswordHash()),
        input.password,
      );
      const fail = async (reason: string) =>
        write.batch({ actor: anonymousActor(null), meta, now }, ({ audit }) =>
          audit({
            action: 'operator.sign_in_failed',
            ...(operator ? { targetType: 'operator', targetId: operator.id } : {}),
            metadata: { email: input.email, reason },
          }),
        );
      if (!operator || !passwordOk) {
        await fail(operator ? 'wrong_password' : 'unknown_email');
        throw new AppError('INVALID_CREDENTIALS');
      }
      if (operator.status !== 'active') {
        await fail('deactivated');
        throw new AppError('FORBIDDEN', {
          message: 'This operator account is deactivated: ask an admin if you need access again.',
        });
      }
      if (operator.totp_secret === null) {
        await fail('second_factor_reset');
        throw new AppError('FORBIDDEN', {
          message: 'Your second factor was reset: open the set-up link an admin gave you to enrol a new one.',
        });
      }
      if (isLocked(operator)) {
        await fail('second_factor_locked');
        throw lockedSecondFactor();
      }
      const challenge = randomToken();
      await repo.insertSignIn(db, {
        token_hash: sha256(challenge),
        operator_id: operator.id,
        attempts: 0,
        expires_at: now + CHALLENGE_MS,
        created_at: now,
      });
      return { challenge, expires_in: CHALLENGE_MS / 1000 };
    },

    /**
     * Step two: the authenticator's code (one time step either way; a step already used is refused,
     * so a code works once) or a recovery code (each once). Each check is reserved before the code is
     * looked at, on the sign-in (5, then the password again) and on the operator (20 wrong in a row
     * lock the factor until an admin resets it), so codes sent at once cannot exceed either bound.
     */
    async signInWithSecondFactor(input: { challenge: string; code: string }, client: ClientMeta) {
      const now = clock.now();
      const challengeHash = sha256(input.challenge);
      const pending = await repo.reserveSignInAttempt(db, challengeHash, now, SECOND_FACTOR_TRIES);
      if (!pending) {
        const found = await repo.findSignIn(db, challengeHash);
        if (found && found.expires_at > now) {
          throw new AppError('OTP_ATTEMPTS_EXCEEDED', {
            message: 'Too many wrong codes: enter your password again.',
          });
        }
        throw new AppError('SIGN_IN_EXPIRED', {
          message: 'The sign-in took too long or was already used: enter your password again.',
        });
      }
      const operator = await repo.reserveSecondFactorCheck(db, pending.operator_id, SECOND_FACTOR_LOCK_AFTER);
      if (!operator) {
        await repo.deleteSignIn(db, challengeHash);
        const current = await repo.findOperator(db, pending.operator_id);
        if (current?.status === 'active' && current.totp_secret !== null && isLocked(current))
          throw lockedSecondFactor();
        throw new AppError('FORBIDDEN', { message: 'This operator account cannot sign in.' });
      }
      const checked = await checkCode(operator, input.code, now);
      if (checked.failure) {
        if (await failCode(operator, checked.failure, client, now)) throw lockedSecondFactor();
        throw checked.failure === 'wrong_recovery_code'
          ? invalidCode('This recovery code is not right or was already used.')
          : invalidCode(
              checked.failure === 'code_reused'
                ? 'This code was already used: wait for the next one in your authenticator app.'
                : undefined,
            );
      }
      if (!(await repo.deleteSignIn(db, challengeHash))) {
        throw new AppError('SIGN_IN_EXPIRED', {
          message: 'This sign-in was already completed: enter your password again.',
        });
      }
      const session = await sessions.open(operator.id, now, client);
      const actor = { partnerId: null, actorType: 'operator' as const, actorId: operator.id };
      await write({ actor, meta: client, now }, async ({ trx, audit }) => {
        await repo.updateOperator(trx, operator.id, { last_sign_in_at: now, second_factor_failures: 0 });
        audit({
          action: 'operator.signed_in',
          targetType: 'operator',
          targetId: operator.id,
          metadata: { method: checked.method },
        });
      });
      return { token: session.token, view: sessions.view(operator, session.token, session.expiresAt) };
    },

    /**
     * The operator behind a session cookie: refused once the session is 8 hours old, 30 minutes idle,
     * signed out, or its operator deactivated. A live session's idle clock moves on.
     */
    async authenticate(token: string): Promise<OperatorCredential & { kind: 'operator' }> {
      const tokenHash = sha256(token);
      const found = await repo.findSession(db, tokenHash);
      if (found?.status !== 'active') throw new AppError('UNAUTHENTICATED');
      const now = clock.now();
      if (found.expires_at <= now || found.last_seen_at <= now - IDLE_MS) {
        throw new AppError('TOKEN_EXPIRED', { message: 'Your console session has ended: sign in again.' });
      }
      if (now - found.last_seen_at >= TOUCH_EVERY_MS) await repo.touchSession(db, tokenHash, now, IDLE_MS);
      return {
        kind: 'operator',
        operatorId: found.operator_id,
        email: found.email,
        name: found.name,
        role: found.role,
        sessionId: found.session_id,
      };
    },

    async session(token: string) {
      const found = await repo.findSession(db, sha256(token));
      if (!found) throw new AppError('UNAUTHENTICATED');
      return sessions.view(
        { id: found.operator_id, email: found.email, name: found.name, role: found.role },
        token,
        found.expires_at,
      );
    },

    async signOut(operator: OperatorCredential, token: string, meta: RequestMeta) {
      await repo.deleteSession(db, sha256(token));
      await write.batch({ actor: operatorActor(null, operator), meta }, ({ audit }) =>
        audit({
          action: 'operator.signed_out',
          ...(operator.kind === 'operator' ? { targetType: 'operator', targetId: operator.operatorId } : {}),
        }),
      );
    },

    /**
     * A new password, given the current one (counted with the sign-in attempts of the address): every
     * other session of the operator and any sign-in half done with the old password end with it.
     */
    async changePassword(
      credential: OperatorCredential,
      input: { current_password: string; password: string; password_confirmation: string },
      meta: RequestMeta,
    ) {
      const person = personOf(credential);
      const now = clock.now();
      await enforceLimit(db, passwordAttemptKey(person.email), now, PASSWORD_ATTEMPTS);
      const operator = await repo.findOperator(db, person.operatorId);
      if (!operator) throw new AppError('UNAUTHENTICATED');
      const actor = operatorActor(null, person);
      if (!(await verifyPassword(operator.password_hash, input.current_password))) {
        await write.batch({ actor, meta, now }, ({ audit }) =>
          audit({
            action: 'operator.password_change_failed',
            targetType: 'operator',
            targetId: operator.id,
            metadata: { reason: 'wrong_password' },
          }),
        );
        throw validationError({ current_password: ['is not your current password'] });
      }
      const errors = newPasswordErrors(input, operator.email);
      if (!errors['password'] && input.password === input.current_password)
        errors['password'] = ['must differ from your current password'];
      if (Object.keys(errors).length > 0) throw validationError(errors);
      const passwordHash = await hashPassword(input.password);
      return write({ actor, meta, now }, async ({ trx, audit }) => {
        await repo.updateOperator(trx, operator.id, { password_hash: passwordHash, updated_at: now });
        const ended = await repo.deleteOtherSessions(trx, operator.id, person.sessionId);
        await repo.deleteSignInsOf(trx, operator.id);
        audit({
          action: 'operator.password_changed',
          targetType: 'operator',
          targetId: operator.id,
          metadata: { sessions_ended: ended },
        });
        return { sessions_ended: ended };
      });
    },

    /** The operator's own live sessions, newest first, the calling one marked. */
    async ownSessions(credential: OperatorCredential) {
      const person = personOf(credential);
      const rows = await repo.listLiveSessionsOf(db, person.operatorId, clock.now(), IDLE_MS, SESSIONS_SHOWN);
      return {
        items: rows.map((row) => ({
          id: row.id,
          current: row.id === person.sessionId,
          ip: row.ip,
          user_agent: row.user_agent,
          created_at: toIso(row.created_at),
          last_seen_at: toIso(row.last_seen_at),
          expires_at: toIso(row.expires_at),
        })),
      };
    },

    /** Ends one of the operator's own sessions (the calling one too: that is signing out). */
    async endOwnSession(credential: OperatorCredential, sessionId: string, meta: RequestMeta) {
      const person = personOf(credential);
      await write({ actor: operatorActor(null, person), meta }, async ({ trx, audit }) => {
        if (!(await repo.deleteSessionById(trx, person.operatorId, sessionId)))
          throw new AppError('NOT_FOUND');
        audit({
          action: 'operator.session_ended',
          targetType: 'operator',
          targetId: person.operatorId,
          metadata: { session_id: sessionId, current: sessionId === person.sessionId },
        });
      });
    },

    /** Ends every session of the operator but the calling one. */
    async endOtherSessions(credential: OperatorCredential, meta: RequestMeta) {
      const person = personOf(credential);
      return write({ actor: operatorActor(null, person), meta }, async ({ trx, audit }) => {
        const ended = await repo.deleteOtherSessions(trx, person.operatorId, person.sessionId);
        audit({
          action: 'operator.other_sessions_ended',
          targetType: 'operator',
          targetId: person.operatorId,
          metadata: { sessions_ended: ended },
        });
        return { sessions_ended: ended };
      });
    },
  };
}
