import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import {
  actorOf,
  anonymousActor,
  partnerActor,
  type RequestMeta,
  userActor,
} from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, WriteContext } from '../../platform/audit/audited-write.js';
import type { SessionCredential } from '../../platform/auth/credentials.js';
import { newPasswordErrors } from '../../platform/auth/password-rules.js';
import type { SecondFactorPolicy, UserRole } from '../../platform/auth/roles.js';
import { isLockedFactor } from '../../platform/auth/totp.js';
import type { Clock } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/crypto/passwords.js';
import { keyedHash } from '../../platform/crypto/secret-box.js';
import { newId, randomOtp, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError, rateLimited, validationError } from '../../platform/errors/errors.js';
import { enforceLimit } from '../../platform/limits/limits.js';
import type { MailOutbox } from '../../platform/mail/outbox.js';
import { extend } from '../../platform/objects.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
import * as repo from './accounts.repository.js';
import { SESSION_TTL_SECONDS } from './accounts.schemas.js';
import type { CodePurpose } from './accounts.table.js';
import * as factors from './second-factor.repository.js';
import * as users from './users.repository.js';

const OTP_TTL_MS = 10 * 60 * 1000;
const RESEND_WINDOW_MS = 60 * 1000;
const LOGIN_WINDOW_MS = 15 * 60 * 1000;
const LOGIN_MAX_FAILURES = 10;
/** A login's second step must come within 5 minutes of its password. */
const CHALLENGE_MS = 5 * 60 * 1000;
/** At most 10 codes of any purpose to one address in 24 hours (docs/partner-guide.md, "Your account"). */
const CODE_BUDGET = { max: 10, windowMs: 24 * 60 * 60 * 1000 };
/** Unverified accounts are deleted this long after their last code. */
export const UNVERIFIED_TTL_MS = 24 * 60 * 60 * 1000;

export interface AccountsDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  mail: Pick<MailOutbox, 'enqueue' | 'wake'>;
  log: Logger;
}

const CODE_MAILS: Record<CodePurpose, { subject: string; text: (code: string) => string }> = {
  verify: {
    subject: 'Your verification code',
    text: (code) =>
      [
        `Your verification code is ${code}.`,
        '',
        'It expires in 10 minutes and can be used once. If you did not create an account, ignore this e-mail.',
      ].join('\n'),
  },
  reset: {
    subject: 'Your password reset code',
    text: (code) =>
      [
        `Your password reset code is ${code}.`,
        '',
        'It expires in 10 minutes and can be used once. If you did not ask to reset your password, ignore this',
        'e-mail: your password stays as it is.',
      ].join('\n'),
  },
};

export type AccountsService = ReturnType<typeof createAccountsService>;

/** A user as login and the code e-mails find them. */
type AccountUser = NonNullable<Awaited<ReturnType<typeof users.findUserByEmail>>>;

/**
 * The name a user gets without having typed one (the registering owner, and every owner made from a
 * partner's login by 2026-11-30-01): the e-mail's local part, a person's handle rather than the
 * business's name (docs/decisions.md, "Dashboard users and roles").
 */
/** A dashboard user's factor locked after too many wrong codes (the login's first and second step). */
export const lockedUserFactor = (): AppError =>
  new AppError('FORBIDDEN', {
    message:
      'Your second factor is locked after too many wrong codes: ask an owner or admin of your business to reset it.',
  });

export const nameOfAddress = (email: string): string => email.split('@')[0] || email;

export function createAccountsService({ db, write, clock, keys, mail, log }: AccountsDeps) {
  /** Keyed by address and purpose: a code proves one address for one purpose. */
  const codeHash = (email: string, purpose: CodePurpose, code: string) =>
    keyedHash(keys.otp, `${purpose}:${email}:${code}`);

  /**
   * The daily budget of codes per address, counted for unknown addresses too (so it reveals
   * nothing). Counted before anything is written: a refused request changes nothing else.
   */
  const spendCodeBudget = (email: string, now: number) =>
    enforceLimit(db, `codes:${email}`, now, CODE_BUDGET);

  /**
   * Replaces the address's code for the purpose. When `mailTo` is given, the code is e-mailed (the
   * outbox row commits with the code); otherwise the code is known to nobody, which is what an
   * unknown or verified address gets, so every address does the same work.
   */
  async function issueCode(
    trx: Kysely<Database>,
    email: string,
    purpose: CodePurpose,
    now: number,
    mailTo: boolean,
  ): Promise<void> {
    const code = randomOtp();
    await repo.replaceCode(trx, {
      email,
      purpose,
      codeHash: codeHash(email, purpose, code),
      expiresAt: now + OTP_TTL_MS,
      now,
    });
    if (mailTo) {
      const template = CODE_MAILS[purpose];
      await mail.enqueue(
        trx,
        { to: email, subject: template.subject, text: template.text(code) },
        now + OTP_TTL_MS,
      );
    }
  }

  /**
   * Checks a code for the address and purpose and, if it is right, consumes it and runs `redeem`
   * in the same transaction. Unknown addresses get a code that matches nothing, so they are
   * answered and counted exactly like registered ones: 5 wrong guesses a code, then
   * OTP_ATTEMPTS_EXCEEDED until a new code is requested.
   */
  async function redeemCode(
    target: { email: string; purpose: CodePurpose; partnerId: number | null },
    code: string,
    meta: RequestMeta,
    redeem: (write: WriteContext) => Promise<void>,
    prepare?: () => Promise<void>,
  ): Promise<void> {
    const now = clock.now();
    const { email, purpose } = target;
    const guessHash = codeHash(email, purpose, code);
    await repo.ensureCode(db, {
      email,
      purpose,
      codeHash: codeHash(email, purpose, randomOtp() + randomToken(8)),
      expiresAt: now + OTP_TTL_MS,
      now,
    });
    const wrongGuess = await write(
      { actor: anonymousActor(target.partnerId), meta, now },
      async ({ trx, audit }) => {
        if (!(await repo.countWrongGuess(trx, { email, purpose }, guessHash, now))) return false;
        audit({
          action: purpose === 'verify' ? 'account.otp_failed' : 'account.reset_code_failed',
          ...(target.partnerId !== null
            ? { targetType: 'partner', targetId: target.partnerId }
            : { metadata: { email } }),
        });
        return true;
      },
    );
    if (wrongGuess) throw new AppError('OTP_INVALID');

    // A code of an unknown address is known to nobody; matching it by chance proves nothing.
    if (target.partnerId !== null) {
      await prepare?.();
      const redeemed = await write({ actor: partnerActor(target.partnerId), meta, now }, async (context) => {
        if (!(await repo.consumeCode(context.trx, { email, purpose }, guessHash, now))) return false;
        await redeem(context);
        return true;
      });
      if (redeemed) return;
    }

    // Neither counted as wrong nor consumed: say why.
    const current = await repo.findCode(db, email, purpose);
    if (!current) throw new AppError('OTP_INVALID');
    if (current.attempts >= repo.OTP_MAX_ATTEMPTS) throw new AppError('OTP_ATTEMPTS_EXCEEDED');
    if (current.expires_at <= now) throw new AppError('OTP_EXPIRED');
    throw new AppError('OTP_INVALID');
  }

  async function register(
    input: {
      business_name: string;
      email: string;
      password: string;
      password_confirmation: string;
      phone: string;
    },
    meta: RequestMeta,
  ) {
    const errors = newPasswordErrors(input, input.email);
    if ((await repo.findPartnerByEmail(db, input.email)) || (await users.findUserByEmail(db, input.email))) {
      errors['email'] = ['is already registered'];
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);

    await spendCodeBudget(input.email, clock.now());
    const passwordHash = await hashPassword(input.password);
    const partnerId = await write(
      {
        actor: anonymousActor(null),
        meta,
        onUniqueViolation: () => validationError({ email: ['is already registered'] }),
      },
      async ({ trx, now, audit }) => {
        const id = await repo.insertPartner(trx, {
          email: input.email,
          business_name: input.business_name,
          legal_business_name: input.business_name,
          phone: input.phone,
          password_hash: passwordHash,
          onboarding_status: 'in_progress',
          last_code_at: now,
          created_at: now,
          updated_at: now,
        });
        // The registering person is the business's first owner, in the same transaction.
        await users.insertUser(trx, {
          id: newId(),
          partner_id: id,
          email: input.email,
          name: nameOfAddress(input.email),
          password_hash: passwordHash,
          role: 'owner',
          created_by_user_id: null,
          created_at: now,
          updated_at: now,
          last_login_at: null,
          removed_at: null,
        });
        await issueCode(trx, input.email, 'verify', now, true);
        audit(
          extend(partnerActor(id), { action: 'account.registered', targetType: 'partner', targetId: id }),
        );
        return id;
      },
    );
    mail.wake();
    return { company_id: partnerId, email: input.email };
  }

  async function verifyOtp(input: { email: string; otp: string }, meta: RequestMeta) {
    const partner = await repo.findPartnerByEmail(db, input.email);
    if (partner && partner.verified_at !== null) throw new AppError('ACCOUNT_ALREADY_VERIFIED');
    try {
      await redeemCode(
        { email: input.email, purpose: 'verify', partnerId: partner?.id ?? null },
        input.otp,
        meta,
        async ({ trx, now, audit }) => {
          if (!partner) return;
          await repo.markVerified(trx, partner.id, now);
          audit({ action: 'account.verified', targetType: 'partner', targetId: partner.id });
        },
      );
    } catch (error) {
      // Of two racing verifications with the right code, the one that lost finds the account verified.
      if (
        partner &&
        error instanceof AppError &&
        error.code === 'OTP_INVALID' &&
        (await repo.findPartnerById(db, partner.id))?.verified_at != null
      ) {
        throw new AppError('ACCOUNT_ALREADY_VERIFIED');
      }
      throw error;
    }
    return { company_id: partner!.id, email: partner!.email, verified: true as const };
  }

  /**
   * Sends a new code of `purpose` to an address, with the same answer, the same limits (once a
   * minute, the daily budget) and the same database work whether or not the address has an account
   * that can use it. `eligible` says whether it has one.
   */
  async function sendCode(
    email: string,
    purpose: CodePurpose,
    eligible: (user: AccountUser) => boolean,
    meta: RequestMeta,
  ): Promise<void> {
    const now = clock.now();
    const throttle = await repo.takeThrottle(db, `${purpose}-code:${email}`, now, RESEND_WINDOW_MS);
    if (!throttle.allowed) throw rateLimited(throttle.retryAfterMs);
    await spendCodeBudget(email, now);

    const user = await users.findUserByEmail(db, email);
    const recipient = user && eligible(user) ? user : undefined;
    await write(
      { actor: anonymousActor(recipient?.partner_id ?? null), meta, now },
      async ({ trx, audit }) => {
        await issueCode(trx, email, purpose, now, recipient !== undefined);
        if (!recipient) return;
        if (recipient.verified_at === null) await repo.touchLastCode(trx, recipient.partner_id, now);
        audit({
          action: purpose === 'verify' ? 'account.otp_resent' : 'account.reset_requested',
          targetType: 'user',
          targetId: recipient.id,
        });
      },
    );
    if (recipient) mail.wake();
  }

  /** Same answer whether or not the account exists or is verified (see sendCode). */
  const resendOtp = (input: { email: string }, meta: RequestMeta) =>
    sendCode(input.email, 'verify', (user) => user.verified_at === null, meta);

  /** Same answer whether or not the account exists (see sendCode). */
  const forgotPassword = (input: { email: string }, meta: RequestMeta) =>
    sendCode(input.email, 'reset', () => true, meta);

  /**
   * A right reset code proves the address: the password changes, every session ends, an unverified
   * account becomes verified and the login lock of the address is lifted. The new password is
   * checked before the code, so a refused password does not use up a guess.
   */
  async function resetPassword(
    input: { email: string; otp: string; password: string; password_confirmation: string },
    meta: RequestMeta,
  ): Promise<void> {
    const errors = newPasswordErrors(input, input.email);
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const user = await users.findUserByEmail(db, input.email);
    let passwordHash: string | undefined;
    await redeemCode(
      { email: input.email, purpose: 'reset', partnerId: user?.partner_id ?? null },
      input.otp,
      meta,
      async ({ trx, now, audit }) => {
        if (!user || passwordHash === undefined) return;
        await repo.resetPassword(trx, { id: user.id, partnerId: user.partner_id }, passwordHash, now);
        const sessions = await repo.deleteSessionsOfUser(trx, user.id);
        await repo.clearLoginAttempts(trx, input.email);
        audit(
          extend(userActor(user.partner_id, user.id), {
            action: 'account.password_reset',
            targetType: 'user',
            targetId: user.id,
            metadata: { sessions_revoked: sessions, verified: user.verified_at === null },
          }),
        );
      },
      // Hashed only once the guess is known not to be wrong: a wrong code costs no argon2id work.
      async () => {
        passwordHash = await hashPassword(input.password);
      },
    );
  }

  /**
   * The attempt is numbered before the password is checked: past the tenth in the e-mail's 15-minute
   * window, it is refused without an argon2id verification, however many attempts race. A successful
   * login clears the count.
   */
  async function login(input: { email: string; password: string }, meta: RequestMeta) {
    const now = clock.now();
    const { attempt, windowStartedAt } = await repo.reserveLoginAttempt(
      db,
      input.email,
      now,
      LOGIN_WINDOW_MS,
    );
    if (attempt > LOGIN_MAX_FAILURES) {
      await write.batch({ actor: anonymousActor(null), meta, now }, ({ audit }) =>
        audit({ action: 'account.login_failed', metadata: { email: input.email, reason: 'locked' } }),
      );
      throw rateLimited(windowStartedAt + LOGIN_WINDOW_MS - now);
    }

    const user = await users.findUserByEmail(db, input.email);
    // An unknown e-mail costs the same argon2id verification as a wrong password.
    const passwordOk = await verifyPassword(
      user?.password_hash ?? (await dummyPasswordHash()),
      input.password,
    );
    if (!user || !passwordOk) {
      await write.batch({ actor: anonymousActor(user?.partner_id ?? null), meta, now }, ({ audit }) =>
        audit({
          action: 'account.login_failed',
          ...(user ? { targetType: 'user', targetId: user.id } : {}),
          metadata: { email: input.email, reason: user ? 'wrong_password' : 'unknown_email' },
        }),
      );
      throw new AppError('INVALID_CREDENTIALS');
    }
    if (user.verified_at === null) {
      await repo.releaseLoginAttempt(db, input.email, windowStartedAt);
      throw new AppError('ACCOUNT_NOT_VERIFIED');
    }

    if (user.totp_secret !== null) return secondFactorChallenge(user, input.email, meta, now);
    return write({ actor: userActor(user.partner_id, user.id), meta, now }, async ({ trx, audit }) => {
      await repo.clearLoginAttempts(trx, input.email);
      return openSession(trx, audit, { id: user.id, partnerId: user.partner_id }, now);
    });
  }

  /**
   * A right password of a user with a second factor: instead of a session, a challenge token (its
   * hash kept, 5 minutes, SECOND_FACTOR_TRIES codes) for POST login/second-factor. A locked factor
   * is refused here, before any code is asked for.
   */
  async function secondFactorChallenge(user: AccountUser, email: string, meta: RequestMeta, now: number) {
    const actor = userActor(user.partner_id, user.id);
    if (isLockedFactor({ locked_at: user.second_factor_locked_at, failures: user.second_factor_failures })) {
      await write.batch({ actor, meta, now }, ({ audit }) =>
        audit({
          action: 'account.login_failed',
          targetType: 'user',
          targetId: user.id,
          metadata: { email, reason: 'second_factor_locked' },
        }),
      );
      throw lockedUserFactor();
    }
    const challenge = randomToken();
    await write({ actor, meta, now }, async ({ trx, audit }) => {
      await repo.clearLoginAttempts(trx, email);
      await factors.insertSignIn(trx, {
        token_hash: sha256(challenge),
        user_id: user.id,
        attempts: 0,
        expires_at: now + CHALLENGE_MS,
        created_at: now,
      });
      audit({ action: 'account.login_second_factor_asked', targetType: 'user', targetId: user.id });
    });
    return {
      second_factor_required: true as const,
      challenge_token: challenge,
      expires_in: CHALLENGE_MS / 1000,
    };
  }

  /**
   * Starts a sandbox session of a user in the caller's transaction (a login, an accepted invitation)
   * and audits it: the login answer, its token shown this once (only its hash is stored).
   */
  async function openSession(
    trx: Transaction<Database>,
    audit: WriteContext['audit'],
    user: { id: string; partnerId: number },
    now: number,
    /** How the login's second factor was checked; none for a login without one. */
    secondFactor?: 'totp' | 'recovery_code',
  ) {
    const token = randomToken();
    const environment: Environment = 'sandbox';
    const sessionId = newId();
    await repo.insertSession(trx, {
      id: sessionId,
      token_hash: sha256(token),
      partner_id: user.partnerId,
      user_id: user.id,
      environment,
      created_at: now,
      expires_at: now + SESSION_TTL_SECONDS * 1000,
      second_factor: secondFactor ? 1 : 0,
    });
    await users.touchLastLogin(trx, user.id, now);
    audit({
      action: 'account.login',
      targetType: 'session',
      targetId: sessionId,
      ...(secondFactor ? { metadata: { second_factor: secondFactor } } : {}),
    });
    return { token, token_type: 'Bearer' as const, expires_in: SESSION_TTL_SECONDS, environment };
  }

  async function logout(credential: SessionCredential, meta: RequestMeta): Promise<void> {
    await write({ actor: actorOf(credential), meta }, async ({ trx, audit }) => {
      await repo.deleteSession(trx, credential.sessionId);
      audit({ action: 'account.logout', targetType: 'session', targetId: credential.sessionId });
    });
  }

  /** The credential of a session row (read by its token hash): expired sessions are refused. */
  function sessionCredential(
    session:
      | {
          id: string;
          partner_id: number;
          environment: Environment;
          expires_at: number;
          onboarding_status: OnboardingStatus;
          business_name: string;
          user_id: string;
          user_name: string;
          user_role: UserRole;
          second_factor: number;
          second_factor_policy: SecondFactorPolicy;
        }
      | undefined,
  ): SessionCredential {
    if (!session) throw new AppError('UNAUTHENTICATED');
    if (session.expires_at <= clock.now()) throw new AppError('TOKEN_EXPIRED');
    return {
      kind: 'session',
      sessionId: session.id,
      partnerId: session.partner_id,
      environment: session.environment,
      partnerSuspended: session.onboarding_status === 'suspended',
      businessName: session.business_name,
      userId: session.user_id,
      userName: session.user_name,
      role: session.user_role,
      secondFactor: Number(session.second_factor) === 1,
      secondFactorPolicy: session.second_factor_policy,
    };
  }

  const authenticateSession = async (token: string): Promise<SessionCredential> =>
    sessionCredential(await repo.findSessionByTokenHash(db, sha256(token)));

  /** Who a session belongs to, as the session answer shows them. */
  async function sessionUser(session: SessionCredential) {
    const row = await users.findUser(db, session.partnerId, session.userId);
    if (!row) throw new AppError('UNAUTHENTICATED');
    return { id: row.id, email: row.email, name: row.name, role: row.role };
  }

  return {
    openSession,
    sessionUser,
    userNamesOf: (ids: readonly string[]) => users.userNames(db, ids),
    register,
    verifyOtp,
    resendOtp,
    forgotPassword,
    resetPassword,
    login,
    logout,
    authenticateSession,
    sessionCredential,
    namesOf: (ids: readonly number[]) => repo.partnerNames(db, ids),
    idsMatching: (text: string, limit: number) => repo.partnerIdsMatching(db, text.toLowerCase(), limit),
    setSessionEnvironment: (trx: Transaction<Database>, sessionId: string, environment: Environment) =>
      repo.updateSessionEnvironment(trx, sessionId, environment),
    purgeExpired: async () => {
      const now = clock.now();
      await factors.purgeExpiredSignIns(db, now);
      await repo.purgeExpiredAccountRows(db, now);
      const deleted = await repo.deleteStaleUnverified(db, now - UNVERIFIED_TTL_MS);
      if (deleted > 0) log.info({ deleted }, 'unverified accounts deleted 24 hours after their last code');
    },
  };
}
