import { validationError } from './errors/errors.js';
import { isRealDate } from './http/validation.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Epoch ms of an ISO-8601 date (its first or last millisecond, UTC) or date-time; undefined if not real. */
function instant(value: string, end: boolean): number | undefined {
  if (!isRealDate(value.slice(0, 10))) return undefined;
  if (value.length === 10) return Date.parse(`${value}T00:00:00Z`) + (end ? DAY_MS - 1 : 0);
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/**
 * The inclusive `created_at` bounds of a list filter (docs/decisions.md, "List filters"): a date
 * alone means that whole day, UTC. A bound that names no real instant, or a range that ends before it
 * starts, is 422 naming the field.
 */
export function createdRange(query: { created_from?: string; created_to?: string }): {
  from?: number;
  to?: number;
} {
  return instantRange(query.created_from, query.created_to, ['created_from', 'created_to']);
}

/** The inclusive bounds of any two such fields, named in the errors as `fields` says. */
export function instantRange(
  fromText: string | undefined,
  toText: string | undefined,
  fields: readonly [string, string],
): { from?: number; to?: number } {
  const [fromField, toField] = fields;
  const from = fromText === undefined ? undefined : instant(fromText, false);
  const to = toText === undefined ? undefined : instant(toText, true);
  if (fromText !== undefined && from === undefined)
    throw validationError({ [fromField]: ['must be a real date or date-time'] });
  if (toText !== undefined && to === undefined)
    throw validationError({ [toField]: ['must be a real date or date-time'] });
  if (from !== undefined && to !== undefined && from > to)
    throw validationError({ [toField]: [`must not be before ${fromField}`] });
  return { from, to };
}

/** The first and last millisecond (UTC) of a period of whole days, YYYY-MM-DD to YYYY-MM-DD. */
export function dayRange(from: string, to: string, maxDays: number): { start: number; end: number } {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS - 1;
  if (end < start) throw validationError({ to: ['must not be before from'] });
  if ((end + 1 - start) / DAY_MS > maxDays)
    throw validationError({ to: [`must be at most ${maxDays} days after from`] });
  return { start, end };
}
