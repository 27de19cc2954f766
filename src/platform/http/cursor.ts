import { AppError } from './errors.js';

/** Opaque keyset cursors: clients pass back next_cursor unchanged. */
export function encodeCursor(position: string | number): string {
  return Buffer.from(JSON.stringify({ p: position })).toString('base64url');
}

export function decodeCursor<T extends 'string' | 'number'>(
  cursor: string | undefined,
  kind: T,
): (T extends 'string' ? string : number) | undefined {
  if (cursor === undefined) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown };
    if (typeof decoded.p === kind && (kind === 'string' || Number.isSafeInteger(decoded.p))) {
      return decoded.p as T extends 'string' ? string : number;
    }
  } catch {
    // fall through: not a cursor this service issued
  }
  throw new AppError('VALIDATION_FAILED', { errors: { cursor: ['is not a cursor this API issued'] } });
}

/** Splits a `limit + 1` row fetch into a page and the cursor of the next one. */
export function paginate<T>(rows: T[], limit: number, positionOf: (row: T) => string | number) {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(positionOf(last)) : null,
  };
}
