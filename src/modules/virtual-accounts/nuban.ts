/**
 * NUBAN under the CBN 2020 revision: a 10-digit account number is a 9-digit serial and a check
 * digit computed over the 6-digit institution code and the serial (15 digits) with weights
 * 3,7,3 repeating: check = (10 − (Σ dᵢ·wᵢ mod 10)) mod 10.
 */

const WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3] as const;

/**
 * The 6-digit form of an institution code: 3-digit (deposit money bank) codes are padded `000`,
 * 5-digit (other financial institution) codes take the `9` prefix, 6-digit codes are used as they are.
 */
export function institutionCode(code: string): string {
  if (/^[0-9]{3}$/.test(code)) return `000${code}`;
  if (/^[0-9]{5}$/.test(code)) return `9${code}`;
  if (/^[0-9]{6}$/.test(code)) return code;
  throw new RangeError(`an institution code has 3, 5 or 6 digits, got "${code}"`);
}

export function checkDigit(code: string, serial: string): number {
  if (!/^[0-9]{9}$/.test(serial)) throw new RangeError(`a NUBAN serial has 9 digits, got "${serial}"`);
  const digits = `${institutionCode(code)}${serial}`;
  let sum = 0;
  for (let index = 0; index < WEIGHTS.length; index++) sum += Number(digits[index]) * WEIGHTS[index]!;
  return (10 - (sum % 10)) % 10;
}

/** The 10-digit account number for a serial at an institution. */
export function nuban(code: string, serial: string): string {
  return `${serial}${checkDigit(code, serial)}`;
}

export function isValidNuban(code: string, accountNumber: string): boolean {
  if (!/^[0-9]{10}$/.test(accountNumber)) return false;
  return checkDigit(code, accountNumber.slice(0, 9)) === Number(accountNumber[9]);
}
