import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { insertAuditEvent, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { Clock } from '../../platform/clock.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/crypto/passwords.js';
import { keyedHash } from '../../platform/crypto/secret-box.js';
import { newId, randomOtp, randomToken, sha256 } from '../../platform/crypto/tokens.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { Database } from '../../platform/db/schema.js';
import type { SessionCredential } from '../../platform/http/auth.js';
import { AppError, rateLimited, validationError } from '../../platform/http/errors.js';
import type { Environment } from '../../platform/http/schemas.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import * as repo from './accounts.repository.js';
import { SESSION_TTL_SECONDS } from './accounts.schemas.js';
import commonPasswords from './common-passwords.json' with { type: 'json' };

const OTP_TTL_MS = 10 * 60 * 1000;
const RESEND_WINDOW_MS = 60 * 1000;
const LOGIN_WINDOW_MS = 15 * 60 * 1000;
const LOGIN_MAX_FAILURES = 10;

const COMMON_PASSWORDS = new Set(commonPasswords);

export interface AccountsDeps {
  db: Kysely<Database>;
  clock: Clock;
  keys: KeyRing;
  mailer: Mailer;
  log: Logger;
}

export function passwordProblems(password: string, email: string): string[] {
  const lowered = password.toLowerCase();
  const problems: string[] = [];
  if (COMMON_PASSWORDS.has(lowered)) problems.push('is one of the most common passwords; choose another');
  else if (lowered === email || lowered === email.split('@')[0])
    problems.push('must not be your e-mail address');
  return problems;
}

export type AccountsService = ReturnType<typeof createAccountsService>;

export function createAccountsService({ db, clock, keys, mailer, log }: AccountsDeps) {
  const pendingMail = new Set<Promise<unknown>>();

  const otpHash = (partnerId: number, code: string) => keyedHash(keys.otp, `${partnerId}:${code}`);

  async function issueOtp(trx: Kysely<Database>, partnerId: number, now: number): Promise<string> {
    const code = randomOtp();
    await repo.replaceOtp(trx, {
      partnerId,
      codeHash: otpHash(partnerId, code),
      expiresAt: now + OTP_TTL_MS,
      now,
    });
    return code;
  }

  function sendOtpMail(email: string, code: string): Promise<void> {
    return mailer.send({
      to: email,
      subject: 'Your verification code',
      text: [
        `Your verification code is ${code}.`,
        '',
        'It expires in 10 minutes and can be used once. If you did not create an account, ignore this e-mail.',
      ].join('\n'),
    });
  }

  /** Sends without holding up the response; shutdown waits for these. */
  function sendInBackground(task: () => Promise<void>): void {
    const pending = task().catch((error: unknown) => log.error({ err: error }, 'background e-mail failed'));
    pendingMail.add(pending);
    void pending.finally(() => pendingMail.delete(pending));
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
    const errors: Record<string, string[]> = {};
    if (input.password !== input.password_confirmation)
      errors['password_confirmation'] = ['must match password'];
    const problems = passwordProblems(input.password, input.email);
    if (problems.length > 0) errors['password'] = problems;
    if (await repo.findPartnerByEmail(db, input.email)) errors['email'] = ['is already registered'];
    if (Object.keys(errors).length > 0) throw validationError(errors);

    const passwordHash = await hashPassword(input.password);
    const now = clock.now();
    let created: { partnerId: number; code: string };
    try {
      created = await db.transaction().execute(async (trx) => {
        const partnerId = await repo.insertPartner(trx, {
          email: input.email,
          business_name: input.business_name,
          legal_business_name: input.business_name,
          phone: input.phone,
          password_hash: passwordHash,
          onboarding_status: 'in_progress',
          created_at: now,
          updated_at: now,
        });
        const code = await issueOtp(trx, partnerId, now);
        await insertAuditEvent(
          trx,
          {
            partnerId,
            actorType: 'partner',
            actorId: partnerId,
            action: 'account.registered',
            targetType: 'partner',
            targetId: partnerId,
          },
          meta,
          now,
        );
        return { partnerId, code };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw validationError({ email: ['is already registered'] });
      throw error;
    }

    // The account exists whatever the mail server does; resend-otp recovers a failed send.
    let mailSent = true;
    try {
      await sendOtpMail(input.email, created.code);
    } catch (error) {
      mailSent = false;
      log.error({ err: error, partner_id: created.partnerId }, 'verification e-mail could not be sent');
    }
    return {
      data: { company_id: created.partnerId, email: input.email },
      message: mailSent
        ? 'Account created. A 6-digit verification code was sent to your e-mail address.'
        : 'Account created, but the verification e-mail could not be sent. Request a new code with resend-otp.',
    };
  }

  async function verifyOtp(input: { email: string; otp: string }, meta: RequestMeta) {
    const partner = await repo.findPartnerByEmail(db, input.email);
    if (!partner) throw new AppError('OTP_INVALID');
    if (partner.verified_at !== null) throw new AppError('ACCOUNT_ALREADY_VERIFIED');

    const now = clock.now();
    const guessHash = otpHash(partner.id, input.otp);
    const wrongGuess = await db.transaction().execute(async (trx) => {
      if (!(await repo.countWrongGuess(trx, partner.id, guessHash, now))) return false;
      await insertAuditEvent(
        trx,
        {
          partnerId: partner.id,
          actorType: 'anonymous',
          action: 'account.otp_failed',
          targetType: 'partner',
          targetId: partner.id,
        },
        meta,
        now,
      );
      return true;
    });
    if (wrongGuess) throw new AppError('OTP_INVALID');

    const verified = await db.transaction().execute(async (trx) => {
      if (!(await repo.consumeOtp(trx, partner.id, guessHash, now))) return false;
      await repo.markVerified(trx, partner.id, now);
      await insertAuditEvent(
        trx,
        {
          partnerId: partner.id,
          actorType: 'partner',
          actorId: partner.id,
          action: 'account.verified',
          targetType: 'partner',
          targetId: partner.id,
        },
        meta,
        now,
      );
      return true;
    });
    if (verified) return { company_id: partner.id, email: partner.email, verified: true as const };

    // Neither counted as wrong nor consumed: say why.
    const current = await repo.findPartnerById(db, partner.id);
    if (current?.verified_at !== null) throw new AppError('ACCOUNT_ALREADY_VERIFIED');
    const otp = await repo.findOtp(db, partner.id);
    if (!otp)
      throw new AppError('OTP_INVALID', { message: 'No verification code is pending; request a new one.' });
    if (otp.attempts >= repo.OTP_MAX_ATTEMPTS) throw new AppError('OTP_ATTEMPTS_EXCEEDED');
    throw new AppError('OTP_EXPIRED');
  }

  /**
   * Same answer whether or not the account exists or is verified. The once-a-minute limit is per
   * e-mail address, known or not, so it reveals nothing either; the mail goes out in the background
   * so the response time does not tell either.
   */
  async function resendOtp(input: { email: string }, meta: RequestMeta): Promise<void> {
    const now = clock.now();
    const throttleKey = `resend-otp:${input.email}`;
    const throttle = await repo.takeThrottle(db, throttleKey, now, RESEND_WINDOW_MS);
    if (!throttle.allowed) throw rateLimited(throttle.retryAfterMs);

    const partner = await repo.findPartnerByEmail(db, input.email);
    if (!partner || partner.verified_at !== null) return;
    const code = await db.transaction().execute(async (trx) => {
      const issued = await issueOtp(trx, partner.id, now);
      await insertAuditEvent(
        trx,
        {
          partnerId: partner.id,
          actorType: 'anonymous',
          action: 'account.otp_resent',
          targetType: 'partner',
          targetId: partner.id,
        },
        meta,
        now,
      );
      return issued;
    });
    sendInBackground(async () => {
      try {
        await sendOtpMail(partner.email, code);
      } catch (error) {
        // A send that failed does not use up the minute: the partner can ask again at once.
        await repo.releaseThrottle(db, throttleKey, now);
        throw error;
      }
    });
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
      await insertAuditEvent(
        db,
        {
          partnerId: null,
          actorType: 'anonymous',
          action: 'account.login_failed',
          metadata: { email: input.email, reason: 'locked' },
        },
        meta,
        now,
      );
      throw rateLimited(windowStartedAt + LOGIN_WINDOW_MS - now);
    }

    const partner = await repo.findPartnerByEmail(db, input.email);
    // An unknown e-mail costs the same argon2id verification as a wrong password.
    const passwordOk = await verifyPassword(
      partner?.password_hash ?? (await dummyPasswordHash()),
      input.password,
    );
    if (!partner || !passwordOk) {
      await insertAuditEvent(
        db,
        {
          partnerId: partner?.id ?? null,
          actorType: 'anonymous',
          action: 'account.login_failed',
          ...(partner ? { targetType: 'partner', targetId: partner.id } : {}),
          metadata: { email: input.email, reason: partner ? 'wrong_password' : 'unknown_email' },
        },
        meta,
        now,
      );
      throw new AppError('INVALID_CREDENTIALS');
    }
    if (partner.verified_at === null) {
      await repo.releaseLoginAttempt(db, input.email, windowStartedAt);
      throw new AppError('ACCOUNT_NOT_VERIFIED');
    }

    const token = randomToken();
    const environment: Environment = 'sandbox';
    await db.transaction().execute(async (trx) => {
      const sessionId = newId();
      await repo.insertSession(trx, {
        id: sessionId,
        token_hash: sha256(token),
        partner_id: partner.id,
        environment,
        created_at: now,
        expires_at: now + SESSION_TTL_SECONDS * 1000,
      });
      await repo.clearLoginAttempts(trx, input.email);
      await insertAuditEvent(
        trx,
        {
          partnerId: partner.id,
          actorType: 'partner',
          actorId: partner.id,
          action: 'account.login',
          targetType: 'session',
          targetId: sessionId,
        },
        meta,
        now,
      );
    });
    return { token, token_type: 'Bearer' as const, expires_in: SESSION_TTL_SECONDS, environment };
  }

  async function logout(credential: SessionCredential, meta: RequestMeta): Promise<void> {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      await repo.deleteSession(trx, credential.sessionId);
      await insertAuditEvent(
        trx,
        {
          partnerId: credential.partnerId,
          actorType: 'partner',
          actorId: credential.partnerId,
          action: 'account.logout',
          targetType: 'session',
          targetId: credential.sessionId,
        },
        meta,
        now,
      );
    });
  }

  async function authenticateSession(token: string): Promise<SessionCredential> {
    const session = await repo.findSessionByTokenHash(db, sha256(token));
    if (!session) throw new AppError('UNAUTHENTICATED');
    if (session.expires_at <= clock.now()) throw new AppError('TOKEN_EXPIRED');
    return {
      kind: 'session',
      sessionId: session.id,
      partnerId: session.partner_id,
      environment: session.environment as Environment,
      onboardingStatus: session.onboarding_status,
    };
  }

  return {
    register,
    verifyOtp,
    resendOtp,
    login,
    logout,
    authenticateSession,
    setSessionEnvironment: (trx: Kysely<Database>, sessionId: string, environment: Environment) =>
      repo.updateSessionEnvironment(trx, sessionId, environment),
    findPartner: (partnerId: number) => repo.findPartnerById(db, partnerId),
    purgeExpired: () => repo.purgeExpiredAccountRows(db, clock.now()),
    /** Waits for background e-mails (shutdown, tests). */
    flush: async () => {
      await Promise.allSettled([...pendingMail]);
    },
  };
}
