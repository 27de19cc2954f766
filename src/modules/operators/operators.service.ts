import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import {
  type AuditActor,
  anonymousActor,
  operatorActor,
  type RequestMeta,
} from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { OperatorCredential } from '../../platform/auth/credentials.js';
import { type Clock, toIso } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/crypto/passwords.js';
import { decrypt, encrypt, keyedHash } from '../../platform/crypto/secret-box.js';
import { newId, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, type FieldErrors, validationError } from '../../platform/errors/errors.js';
import { antiForgeryToken } from '../../platform/http/csrf.js';
import { enforceLimit } from '../../platform/limits/limits.js';
import { extend } from '../../platform/objects.js';
import { keysetCursor } from '../../platform/pagination/cursor.js';
import { passwordProblems } from '../accounts/accounts.service.js';
import * as repo from './operators.repository.js';
import type { EnrolmentBody, OperatorRole } from './operators.schemas.js';

export type OperatorsService = ReturnType<typeof createOperatorsService>;

const MINUTE = 60 * 1000;
/** CONTRACT 5: an operator session lasts at most 8 hours and ends after 30 minutes idle. */
export const SESSION_MS = 8 * 60 * MINUTE;
export const IDLE_MS = 30 * MINUTE;
/** last_seen_at is moved at most once a minute: idleness is measured to the minute. */
const TOUCH_EVERY_MS = MINUTE;
const CHALLENGE_MS = 5 * MINUTE;
const INVITATION_MS = 72 * 60 * MINUTE;
const SECOND_FACTOR_TRIES = 5;
/** Like partner login: 10 attempts per e-mail address in 15 minutes. */
const SIGN_IN_LIMIT = { max: 10, windowMs: 15 * MINUTE };
const RECOVERY_CODES = 10;
const TOTP_PERIOD_S = 30;
const ISSUER = 'BaaS Console';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

const totpFor = (email: string, base32: string) =>
  new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(base32),
  });

/** `abcde-fghij`: 50 bits from the CSPRNG. */
function recoveryCode(): string {
  const chars = [...randomBytes(10)].map((byte) => BASE32[byte & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A recovery code as typed: case, spaces and dashes do not matter. */
const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

const invalidCode = (message = 'The code is not right: check your authenticator app and try again.') =>
  new AppError('OTP_INVALID', { message });

export function createOperatorsService({
  db,
  write,
  clock,
  keys,
  publicUrl,
}: {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  /** Where the console is reached: invitation links start with it. */
  publicUrl: string;
}) {
  const csrfOf = (sessionToken: string) => antiForgeryToken(keys.csrf, sessionToken);
  const recoveryHash = (code: string) => keyedHash(keys.otp, `recovery:${normalizeRecoveryCode(code)}`);
  const inviteUrl = (token: string) => `${publicUrl.replace(/\/$/, '')}/console/setup#token=${token}`;

  function operatorView(row: repo.OperatorRow) {
    return {
      id: row.id,
      email: row.email,
      name: row.name,
      role: row.role,
      status: row.status,
      second_factor: row.totp_secret === null ? ('reset_pending' as const) : ('enrolled' as const),
      last_sign_in_at: row.last_sign_in_at === null ? null : toIso(row.last_sign_in_at),
      created_at: toIso(row.created_at),
    };
  }

  function sessionView(
    operator: Pick<repo.OperatorRow, 'id' | 'email' | 'name' | 'role'>,
    token: string,
    expiresAt: number,
  ) {
    return {
      operator: { id: operator.id, email: operator.email, name: operator.name, role: operator.role },
      csrf_token: csrfOf(token),
      expires_at: toIso(expiresAt),
      idle_timeout_seconds: IDLE_MS / 1000,
    };
  }

  /** A new session for an operator who passed both factors: the token goes into the cookie. */
  async function openSession(operatorId: string, now: number) {
    const token = randomToken();
    const expiresAt = now + SESSION_MS;
    await repo.insertSession(db, {
      token_hash: sha256(token),
      id: newId(),
      operator_id: operatorId,
      last_seen_at: now,
      expires_at: expiresAt,
      created_at: now,
    });
    return { token, expiresAt };
  }

  /** The invitation behind a link, open and not expired, or the answer that says why not. */
  function openInvitation(row: repo.InvitationRow | undefined, now: number): repo.InvitationRow {
    if (!row || row.accepted_at !== null || row.revoked_at !== null) {
      throw new AppError('NOT_FOUND', {
        message: 'This invitation link is not valid: it was used or replaced, or never existed.',
      });
    }
    if (row.expires_at <= now) throw new AppError('INVITATION_EXPIRED');
    return row;
  }

  /** Creates an invitation; the caller gets the one-time link, the database only its hash. */
  async function createInvitation(
    actor: AuditActor,
    createdBy: string | null,
    input: {
      email: string;
      role: OperatorRole;
      purpose: 'invite' | 'reset_second_factor';
      operatorId?: string;
    },
    meta: RequestMeta | null,
  ) {
    const token = randomToken();
    const now = clock.now();
    const id = newId();
    const expiresAt = now + INVITATION_MS;
    await write({ actor, meta, now }, async ({ trx, audit }) => {
      await repo.revokeOpenInvitations(
        trx,
        input.operatorId ? { operatorId: input.operatorId } : { email: input.email },
        now,
      );
      await repo.insertInvitation(trx, {
        id,
        token_hash: sha256(token),
        purpose: input.purpose,
        email: input.email,
        role: input.role,
        operator_id: input.operatorId ?? null,
        created_by: createdBy,
        pending_name: null,
        pending_password_hash: null,
        pending_totp_secret: null,
        expires_at: expiresAt,
        accepted_at: null,
        revoked_at: null,
        created_at: now,
      });
      audit({
        action: input.purpose === 'invite' ? 'operator.invited' : 'operator.second_factor_reset',
        targetType: input.operatorId ? 'operator' : 'operator_invitation',
        targetId: input.operatorId ?? id,
        metadata: { email: input.email, role: input.role },
      });
    });
    return {
      id,
      email: input.email,
      role: input.role,
      purpose: input.purpose,
      expires_at: toIso(expiresAt),
      url: inviteUrl(token),
    };
  }

  const requireAdmin = (operator: OperatorCredential) => {
    if (operator.kind === 'operator' && operator.role !== 'admin') {
      throw new AppError('FORBIDDEN', { message: 'Only an admin can manage operators.' });
    }
  };

  const creatorOf = (operator: OperatorCredential) =>
    operator.kind === 'operator' ? operator.operatorId : null;

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
      const actor = operator
        ? operatorActor(null, operator)
        : { partnerId: null, actorType: 'system' as const, actorId: 'cli' };
      return createInvitation(
        actor,
        operator ? creatorOf(operator) : null,
        extend(input, { purpose: 'invite' }),
        meta,
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
     * second factor is confirmed) and a fresh TOTP secret for the authenticator app. Asking again
     * draws a new secret.
     */
    async startEnrolment(token: string, input: EnrolmentBody) {
      const row = openInvitation(await repo.findInvitation(db, sha256(token)), clock.now());
      let pending: { pending_name?: string; pending_password_hash?: string } = {};
      if (row.purpose === 'invite') {
        const errors: FieldErrors = {};
        if (!input.name) errors['name'] = ['is required'];
        if (input.password === undefined) errors['password'] = ['is required'];
        else {
          // The partner password's rule (8-128 characters, counted as ajv's minLength counts them).
          const problems =
            [...input.password].length < 8
              ? ['must be at least 8 characters']
              : passwordProblems(input.password, row.email);
          if (problems.length > 0) errors['password'] = problems;
          if (input.password !== input.password_confirmation)
            errors['password_confirmation'] = ['must match password'];
        }
        if (Object.keys(errors).length > 0) throw validationError(errors);
        pending = { pending_name: input.name!, pending_password_hash: await hashPassword(input.password!) };
      }
      const secret = new Secret({ size: 20 }).base32;
      await repo.updateInvitation(
        db,
        row.id,
        extend(pending, { pending_totp_secret: encrypt(keys.encryption, secret) }),
      );
      return { secret, otpauth_url: totpFor(row.email, secret).toString() };
    },

    /**
     * Step two: the authenticator's code proves the secret was taken. The operator is created (or
     * its second factor replaced), gets ten recovery codes and is signed in. The invitation is used up.
     */
    async acceptInvitation(token: string, code: string, meta: RequestMeta) {
      const tokenHash = sha256(token);
      const now = clock.now();
      const before = openInvitation(await repo.findInvitation(db, tokenHash), now);
      if (before.pending_totp_secret === null) {
        throw new AppError('ONBOARDING_LOCKED', {
          message: 'Start the set-up first: it gives the secret for your authenticator app.',
        });
      }
      const secret = decrypt(keys.encryption, before.pending_totp_secret);
      const delta = totpFor(before.email, secret).validate({ token: code, timestamp: now, window: 1 });
      if (delta === null) throw invalidCode();
      const step = Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
      const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
      const operatorId = before.operator_id ?? newId();
      const operator = await write(
        {
          actor: { partnerId: null, actorType: 'operator', actorId: operatorId },
          meta,
          now,
          // The address became an operator through another invitation meanwhile.
          onUniqueViolation: () => validationError({ email: ['is already an operator'] }),
        },
        async ({ trx, audit }) => {
          const row = openInvitation(await repo.lockInvitation(trx, tokenHash), now);
          const sealed = encrypt(keys.encryption, secret);
          if (row.purpose === 'invite') {
            if (!row.pending_name || !row.pending_password_hash) throw new AppError('ONBOARDING_LOCKED');
            await repo.insertOperator(trx, {
              id: operatorId,
              email: row.email,
              name: row.pending_name,
              role: row.role,
              status: 'active',
              password_hash: row.pending_password_hash,
              totp_secret: sealed,
              totp_last_step: step,
              last_sign_in_at: now,
              created_at: now,
              updated_at: now,
            });
          } else {
            const current = await repo.lockOperator(trx, operatorId);
            if (current?.status !== 'active')
              throw new AppError('FORBIDDEN', { message: 'This operator is deactivated.' });
            await repo.updateOperator(trx, operatorId, {
              totp_secret: sealed,
              totp_last_step: step,
              last_sign_in_at: now,
              updated_at: now,
            });
          }
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
      const session = await openSession(operator.id, now);
      return {
        token: session.token,
        view: extend(sessionView(operator, session.token, session.expiresAt), { recovery_codes: codes }),
      };
    },

    /**
     * Step one of signing in. The attempt is counted before the password is checked (10 per address
     * in 15 minutes); an unknown address costs the same argon2id verification as a wrong password.
     */
    async signInWithPassword(input: { email: string; password: string }, meta: RequestMeta) {
      const now = clock.now();
      await enforceLimit(db, `operator-sign-in:${input.email}`, now, SIGN_IN_LIMIT);
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
     * so a code works once) or a recovery code (each once). Five wrong codes end the sign-in.
     */
    async signInWithSecondFactor(input: { challenge: string; code: string }, meta: RequestMeta) {
      const now = clock.now();
      const challengeHash = sha256(input.challenge);
      const pending = await repo.findSignIn(db, challengeHash);
      if (!pending || pending.expires_at <= now) {
        throw new AppError('OTP_EXPIRED', {
          message: 'The sign-in took too long or was already used: enter your password again.',
        });
      }
      if (pending.attempts >= SECOND_FACTOR_TRIES) {
        throw new AppError('OTP_ATTEMPTS_EXCEEDED', {
          message: 'Too many wrong codes: enter your password again.',
        });
      }
      const operator = await repo.findOperator(db, pending.operator_id);
      if (operator?.status !== 'active' || operator.totp_secret === null) {
        await repo.deleteSignIn(db, challengeHash);
        throw new AppError('FORBIDDEN', { message: 'This operator account cannot sign in.' });
      }
      const actor = { partnerId: null, actorType: 'operator' as const, actorId: operator.id };
      let method: 'totp' | 'recovery_code';
      if (/^[0-9]{6}$/.test(input.code)) {
        method = 'totp';
        const secret = decrypt(keys.encryption, operator.totp_secret);
        const delta = totpFor(operator.email, secret).validate({
          token: input.code,
          timestamp: now,
          window: 1,
        });
        const step = delta === null ? undefined : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
        const fresh = step !== undefined && (await repo.takeTotpStep(db, operator.id, step));
        if (!fresh) {
          await repo.countSignInFailure(db, challengeHash, SECOND_FACTOR_TRIES);
          await write.batch({ actor, meta, now }, ({ audit }) =>
            audit({
              action: 'operator.second_factor_failed',
              targetType: 'operator',
              targetId: operator.id,
              metadata: { reason: step === undefined ? 'wrong_code' : 'code_reused' },
            }),
          );
          throw invalidCode(
            step === undefined
              ? undefined
              : 'This code was already used: wait for the next one in your authenticator app.',
          );
        }
      } else {
        method = 'recovery_code';
        if (!(await repo.useRecoveryCode(db, operator.id, recoveryHash(input.code), now))) {
          await repo.countSignInFailure(db, challengeHash, SECOND_FACTOR_TRIES);
          await write.batch({ actor, meta, now }, ({ audit }) =>
            audit({
              action: 'operator.second_factor_failed',
              targetType: 'operator',
              targetId: operator.id,
              metadata: { reason: 'wrong_recovery_code' },
            }),
          );
          throw invalidCode('This recovery code is not right or was already used.');
        }
      }
      if (!(await repo.deleteSignIn(db, challengeHash))) {
        throw new AppError('OTP_EXPIRED', {
          message: 'This sign-in was already completed: enter your password again.',
        });
      }
      const session = await openSession(operator.id, now);
      await write({ actor, meta, now }, async ({ trx, audit }) => {
        await repo.updateOperator(trx, operator.id, { last_sign_in_at: now });
        audit({
          action: 'operator.signed_in',
          targetType: 'operator',
          targetId: operator.id,
          metadata: { method },
        });
      });
      return { token: session.token, view: sessionView(operator, session.token, session.expiresAt) };
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
      return sessionView(
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

    async list(operator: OperatorCredential, query: { limit: number; cursor?: string | undefined }) {
      requireAdmin(operator);
      const cursor = keysetCursor(keys.cursor, 'operators', 'operator', 'string');
      const rows = await repo.listOperators(db, cursor.decode(query.cursor), query.limit);
      const page = cursor.page(rows, query.limit, (row) => row.id);
      return { next_cursor: page.next_cursor, items: page.items.map(operatorView) };
    },

    /** Deactivated at once: every session of the operator ends, and it can no longer sign in. */
    async deactivate(operator: OperatorCredential, id: string, meta: RequestMeta) {
      requireAdmin(operator);
      if (operator.kind === 'operator' && operator.operatorId === id) {
        throw new AppError('FORBIDDEN', { message: 'You cannot deactivate yourself: ask another admin.' });
      }
      return write({ actor: operatorActor(null, operator), meta }, async ({ trx, now, audit }) => {
        const target = await repo.lockOperator(trx, id);
        if (!target) throw new AppError('NOT_FOUND');
        if (target.status === 'deactivated') return operatorView(target);
        await repo.updateOperator(trx, id, { status: 'deactivated', updated_at: now });
        const sessions = await repo.deleteSessionsOf(trx, id);
        await repo.revokeOpenInvitations(trx, { operatorId: id }, now);
        audit({
          action: 'operator.deactivated',
          targetType: 'operator',
          targetId: id,
          metadata: { email: target.email, sessions_revoked: sessions },
        });
        return operatorView(extend(target, { status: 'deactivated', updated_at: now }));
      });
    },

    /**
     * Clears an operator's second factor, recovery codes and sessions, and gives the admin a one-time
     * link through which the operator enrols a new one (the password stays).
     */
    async resetSecondFactor(operator: OperatorCredential, id: string, meta: RequestMeta) {
      requireAdmin(operator);
      const target = await repo.findOperator(db, id);
      if (!target) throw new AppError('NOT_FOUND');
      if (target.status !== 'active')
        throw new AppError('FORBIDDEN', { message: 'This operator is deactivated.' });
      await write({ actor: operatorActor(null, operator), meta }, async ({ trx, now }) => {
        await repo.updateOperator(trx, id, { totp_secret: null, totp_last_step: null, updated_at: now });
        await repo.deleteRecoveryCodes(trx, id);
        await repo.deleteSessionsOf(trx, id);
      });
      return createInvitation(
        operatorActor(null, operator),
        creatorOf(operator),
        { email: target.email, role: target.role, purpose: 'reset_second_factor', operatorId: id },
        meta,
      );
    },

    purgeExpired: () => repo.purgeExpired(db, clock.now()),
  };
}
