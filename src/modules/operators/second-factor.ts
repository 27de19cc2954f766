import { AppError } from '../../platform/errors/errors.js';

/**
 * What is the console's own of an operator's second factor; the factor itself (TOTP, recovery
 * codes, the bounds on wrong codes) is shared with the dashboard's users in platform/auth/totp.ts.
 */

export {
  invalidCode,
  isTotpCode,
  normalizeRecoveryCode,
  RECOVERY_CODES,
  recoveryCode,
  SECOND_FACTOR_LOCK_AFTER,
  SECOND_FACTOR_TRIES,
} from '../../platform/auth/totp.js';

import {
  newTotpSecret,
  otpauthUrl as sharedOtpauthUrl,
  totpStep as sharedTotpStep,
} from '../../platform/auth/totp.js';

export { newTotpSecret };

const ISSUER = 'BaaS Console';

export const otpauthUrl = (email: string, base32: string): string => sharedOtpauthUrl(ISSUER, email, base32);

/** The time step a code belongs to (one step either way of now), or undefined for a wrong code. */
export const totpStep = (email: string, base32: string, code: string, now: number): number | undefined =>
  sharedTotpStep(ISSUER, email, base32, code, now);

export const lockedSecondFactor = (): AppError =>
  new AppError('FORBIDDEN', {
    message:
      'Your second factor is locked after too many wrong codes: ask an admin to reset it, then enrol a new one.',
  });

/** Password attempts per operator address in 15 minutes (sign-in, a reset's set-up, a password change). */
export const PASSWORD_ATTEMPTS = { max: 10, windowMs: 15 * 60 * 1000 };
export const passwordAttemptKey = (email: string): string => `operator-sign-in:${email}`;
