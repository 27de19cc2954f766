/**
 * Naira as a Nigerian reader expects it: ₦1,500.50. From integer kobo, so no floating-point
 * rounding ever shows (the API keeps money in kobo and sends `*_kobo` beside each naira amount).
 */
export function formatNaira(kobo: number): string {
  const negative = kobo < 0;
  const absolute = Math.abs(Math.trunc(kobo));
  const naira = Math.floor(absolute / 100);
  const rest = String(absolute % 100).padStart(2, '0');
  const grouped = String(naira).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}₦${grouped}.${rest}`;
}

/** "1,500.50", "1500.5", "₦ 20" → "1500.50", or null when it is no amount of naira with ≤ 2 decimals. */
export function parseNairaInput(text: string): string | null {
  const cleaned = text.replace(/[₦,\s]/g, '');
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!match) return null;
  return `${Number(match[1])}.${(match[2] ?? '').padEnd(2, '0')}`;
}
