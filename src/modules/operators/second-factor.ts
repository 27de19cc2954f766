import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { AppError } from '../../platform/errors/errors.js';

/** What an operator's second factor is made of (TOTP codes, recovery codes), and the bound on password attempts. */

const TOTP_PERIOD_S = 30;
const ISSUER = 'BaaS Console';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
export const RECOVERY_CODES = 10;
/** Wrong codes a sign-in may try before the password must be entered again. */
export const SECOND_FACTOR_TRIES = 5;
/**
 * Consecutive wrong codes, over every sign-in, after which the factor locks until an admin resets it:
 * four sign-ins' worth, far inside NIST SP 800-63B 5.2.2's ceiling of 100.
 */
export const SECOND_FACTOR_LOCK_AFTER = 20;

const totpFor = (email: string, base32: string) =>
  new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(base32),
  });

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export const otpauthUrl = (email: string, base32: string): string => totpFor(email, base32).toString();

/** The time step a code belongs to (one step either way of now), or undefined for a wrong code. */
export function totpStep(email: string, base32: string, code: string, now: number): number | undefined {
  const delta = totpFor(email, base32).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

export const isTotpCode = (code: string): boolean => /^[0-9]{6}$/.test(code);

/** `abcde-fghij`: 50 bits from the CSPRNG. */
export function recoveryCode(): string {
  const chars = [...randomBytes(10)].map((byte) => BASE32[byte & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A recovery code as typed: case, spaces and dashes do not matter. */
export const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

export const invalidCode = (
  message = 'The code is not right: check your authenticator app and try again.',
): AppError => new AppError('OTP_INVALID', { message });

export const lockedSecondFactor = (): AppError =>
  new AppError('FORBIDDEN', {
    message:
      'Your second factor is locked after too many wrong codes: ask an admin to reset it, then enrol a new one.',
  });

/** Password attempts per operator address in 15 minutes (sign-in, a reset's set-up, a password change). */
export const PASSWORD_ATTEMPTS = { max: 10, windowMs: 15 * 60 * 1000 };
export const passwordAttemptKey = (email: string): string => `operator-sign-in:${email}`;
