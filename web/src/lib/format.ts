/** Dates, sizes and durations as the console shows them, in the operator's locale and time zone. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export const formatDateTime = (iso: string): string => dateTime.format(new Date(iso));

/** A date without a time (e.g. a date of birth, `YYYY-MM-DD`), read as that calendar day. */
export const formatDate = (isoDate: string): string =>
  dateOnly.format(new Date(isoDate.length === 10 ? `${isoDate}T12:00:00` : isoDate));

const longDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

/**
 * A calendar day (`YYYY-MM-DD`) spelled out in the reader's locale: "12 April 1990" (en-GB, en-NG),
 * "April 12, 1990" (en-US). Never ambiguous like 04/12/1990; null for anything else.
 */
export function formatLongDate(isoDate: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDate)) return null;
  const date = new Date(`${isoDate}T12:00:00`);
  return Number.isNaN(date.getTime()) ? null : longDate.format(date);
}

export const formatTime = (iso: string): string => timeOnly.format(new Date(iso));

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 hours ago", "in 2 days", "just now". */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
