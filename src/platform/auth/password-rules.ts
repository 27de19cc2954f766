import { normalizePassword } from '../crypto/passwords.js';
import type { FieldErrors } from '../errors/errors.js';
import { CONTROL } from '../text.js';
import commonPasswords from './common-passwords.json' with { type: 'json' };

/** A new password's length in code points of its NFKC form (passwordProblems). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

const COMMON_PASSWORDS = new Set(commonPasswords);

/**
 * The rules of a new password (partners' and operators'). Its length is counted in code points of the
 * NFKC form, the one that is hashed: 8 sent that normalise to 4 are a 4-character password. A control
 * character (a pasted line break, a tab) is refused rather than dropped, since the password is taken
 * exactly as sent and no password field of a browser can type one back.
 */
function passwordProblems(password: string, email: string): string[] {
  if (CONTROL.test(password)) return ['must not contain control characters (tabs, line breaks and the like)'];
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  if (length < PASSWORD_MIN_LENGTH) return [`must be at least ${PASSWORD_MIN_LENGTH} characters`];
  if (length > PASSWORD_MAX_LENGTH) return [`must be at most ${PASSWORD_MAX_LENGTH} characters`];
  const lowered = normalized.toLowerCase();
  if (COMMON_PASSWORDS.has(lowered)) return ['is one of the most common passwords; choose another'];
  if (lowered === email || lowered === email.split('@')[0]) return ['must not be your e-mail address'];
  return [];
}

/** A new password's problems and its confirmation's, by field (empty when it may be set). */
export function newPasswordErrors(
  input: { password?: string | undefined; password_confirmation?: string | undefined },
  email: string,
): FieldErrors {
  if (input.password === undefined) return { password: ['is required'] };
  const errors: FieldErrors = {};
  const problems = passwordProblems(input.password, email);
  if (problems.length > 0) errors['password'] = problems;
  if (input.password !== input.password_confirmation)
    errors['password_confirmation'] = ['must match password'];
  return errors;
}
