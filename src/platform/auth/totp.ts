import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { KeyRing } from '../crypto/keys.js';
import { keyedHash } from '../crypto/secret-box.js';
import { AppError } from '../errors/errors.js';

/**
 * A person's second factor, shared by the console's operators and the dashboard's users: TOTP codes
 * (RFC 6238, 30-second steps, one step either way, each step accepted once), recovery codes (kept as
 * keyed hashes only) and the bounds on wrong codes. Each app names itself as the issuer its
 * authenticator shows.
 */

const TOTP_PERIOD_S = 30;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
export const RECOVERY_CODES = 10;
/** Wrong codes a sign-in may try before the password must be entered again. */
export const SECOND_FACTOR_TRIES = 5;
/**
 * Consecutive wrong codes, over every sign-in, after which the factor locks until it is reset:
 * four sign-ins' worth, far inside NIST SP 800-63B 5.2.2's ceiling of 100.
 */
export const SECOND_FACTOR_LOCK_AFTER = 20;

/** The issuer an authenticator app shows next to the account. */
export type TotpIssuer = 'BaaS Console' | 'BaaS Dashboard';

const totpFor = (issuer: TotpIssuer, email: string, base32: string) =>
  new TOTP({
    issuer,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(base32),
  });

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export const otpauthUrl = (issuer: TotpIssuer, email: string, base32: string): string =>
  totpFor(issuer, email, base32).toString();

/** The time step a code belongs to (one step either way of now), or undefined for a wrong code. */
export function totpStep(
  issuer: TotpIssuer,
  email: string,
  base32: string,
  code: string,
  now: number,
): number | undefined {
  const delta = totpFor(issuer, email, base32).validate({ token: code, timestamp: now, window: 1 });
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

/** A recovery code's keyed hash (the OTP key of the key ring): the only form it is stored in. */
export const recoveryHasher =
  (keys: KeyRing) =>
  (code: string): string =>
    keyedHash(keys.otp, `recovery:${normalizeRecoveryCode(code)}`);

export const invalidCode = (
  message = 'The code is not right: check your authenticator app and try again.',
): AppError => new AppError('OTP_INVALID', { message });

export const reusedCode = (): AppError =>
  invalidCode('This code was already used: wait for the next one in your authenticator app.');

export const wrongRecoveryCode = (): AppError =>
  invalidCode('This recovery code is not right or was already used.');

/** Whether a factor is locked: marked so, or its consecutive failures reached the bound. */
export const isLockedFactor = (factor: { locked_at: number | null; failures: number }): boolean =>
  factor.locked_at !== null || factor.failures >= SECOND_FACTOR_LOCK_AFTER;
