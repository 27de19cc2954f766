/** Naira amounts as the API takes them: digits with at most two decimals. */
const NAIRA = /^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/;

/**
 * Converts a naira amount to integer kobo from its decimal text, never by multiplying a float:
 * 0.29 is exactly 29 kobo, and 1.005 is refused rather than rounded. Undefined when the amount
 * is not a plain decimal with at most two places.
 */
export function nairaToKobo(amount: number | string): number | undefined {
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? String(amount) : '') : amount.trim();
  const match = NAIRA.exec(text);
  if (!match) return undefined;
  const whole = Number(match[1]);
  const fraction = (match[2] ?? '').slice(1).padEnd(2, '0');
  const kobo = whole * 100 + Number(fraction || '0');
  return Number.isSafeInteger(kobo) ? kobo : undefined;
}

/** Integer kobo to a naira number for JSON (exact to the kobo for any realistic balance). */
export const koboToNaira = (kobo: number): number => kobo / 100;

/** Integer kobo as a fixed two-decimal string, e.g. 150050 → "1500.50". */
export function koboToDecimal(kobo: number): string {
  const sign = kobo < 0 ? '-' : '';
  const absolute = Math.abs(kobo);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}
