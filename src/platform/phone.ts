/**
 * Phone numbers in E.164 (`+` then the country code and the number, 8-15 digits in all), the one
 * form every phone field is stored and returned in (docs/decisions.md, "Phone numbers").
 *
 * Nigerian numbers are checked against the national numbering plan, so a digit too many or too few
 * is refused rather than stored: the national significant number is 10 digits, a mobile one
 * (070x except 0700, 071x, 072x, 080x except 0800, 081x, 090x except 0900, 091x) or a geographic
 * one of the 2020 plan (020 + area code: Lagos 0201, Abuja 0209…). The old 7-8 digit landlines
 * and the 0700/0800/0900 non-geographic ranges are not taken: they are rarely anyone's contact
 * number and a mobile number missing digits would pass as one of them. Any other country's number is
 * taken as E.164 when written with its `+` (or `00`) and country code, without a check of that
 * country's plan.
 */

const NIGERIA = '234';

/** A Nigerian national significant number: 10 digits, mobile or 2020-plan geographic. */
const NIGERIAN_NSN = /^(?:7[0-2]|8[01]|9[01])[0-9]{8}$|^20[1-9][0-9]{7}$/;

/** Non-geographic ranges (0700, 0800, 0900) that share the mobile numbers' first digits. */
const NIGERIAN_NON_GEOGRAPHIC = /^[789]00/;

/** What people put between digits, as phone fields take them: spaces, dashes and parentheses. */
const SEPARATORS = /[ ()-]/g;

const isNigerianNsn = (nsn: string): boolean => NIGERIAN_NSN.test(nsn) && !NIGERIAN_NON_GEOGRAPHIC.test(nsn);

/**
 * The E.164 form of a phone number as a person writes it, or null when it cannot be one:
 * `0803 123 4567`, `234 803 123 4567`, `+234 (0)803-123-4567` → `+2348031234567`;
 * `+44 20 7946 0958`, `0044 20 7946 0958` → `+442079460958`.
 */
export function toE164(input: string): string | null {
  const compact = input.trim().replace(SEPARATORS, '');
  let international: string;
  if (compact.startsWith('+')) international = compact.slice(1);
  else if (compact.startsWith('00')) international = compact.slice(2);
  else if (compact.startsWith('0')) international = NIGERIA + compact.slice(1);
  else if (compact.startsWith(NIGERIA)) international = compact;
  else return null;
  if (!/^[1-9][0-9]*$/.test(international)) return null;
  if (international.startsWith(NIGERIA)) {
    let nsn = international.slice(NIGERIA.length);
    // "+234 0803…": the trunk 0 written after the country code.
    if (nsn.length === 11 && nsn.startsWith('0')) nsn = nsn.slice(1);
    return isNigerianNsn(nsn) ? `+${NIGERIA}${nsn}` : null;
  }
  if (international.length < 8 || international.length > 15) return null;
  return `+${international}`;
}

/** Whether a value is already a phone number in the stored form. */
export const isE164 = (value: string): boolean => toE164(value) === value;
