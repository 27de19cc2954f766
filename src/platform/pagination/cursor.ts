import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/errors.js';

type Kind = 'string' | 'number';
type Position<K extends Kind> = K extends 'string' ? string : number;

const MAC_BYTES = 16;

const invalid = () =>
  new AppError('VALIDATION_FAILED', {
    errors: { cursor: ['is not a cursor this API issued for this list'] },
  });

/**
 * Opaque, authenticated keyset cursors (docs/partner-guide.md, "Pagination"; docs/decisions.md,
 * "Pagination cursors"): `<position>.<mac>`, the MAC binding the position to the list and to whose
 * list it is (partner, environment). A cursor the service did not issue for exactly this list
 * (altered, forged, another list's or another partner's) is refused before anything reaches SQL, so
 * no crafted value (a NUL byte, an out-of-range number) can.
 */
export function keysetCursor<K extends Kind>(key: Buffer, list: string, scope: string | number, kind: K) {
  const mac = (payload: string) =>
    createHmac('sha256', key).update(`${list}\n${scope}\n${payload}`).digest().subarray(0, MAC_BYTES);

  function encode(position: Position<K>): string {
    const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${payload}.${mac(payload).toString('base64url')}`;
  }

  return {
    decode(cursor: string | undefined): Position<K> | undefined {
      if (cursor === undefined) return undefined;
      const [payload, tag, extra] = cursor.split('.');
      if (payload === undefined || tag === undefined || extra !== undefined) throw invalid();
      const given = Buffer.from(tag, 'base64url');
      // Only the encoding issued: base64url decoding ignores stray characters and a last character's
      // spare bits, so other spellings of the same MAC would pass as altered cursors.
      if (given.length !== MAC_BYTES || given.toString('base64url') !== tag) throw invalid();
      if (!timingSafeEqual(given, mac(payload))) throw invalid();
      const position: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (typeof position !== kind || (kind === 'number' && !Number.isSafeInteger(position))) throw invalid();
      return position as Position<K>;
    },

    /** Splits a `limit + 1` row fetch into a page and the cursor of the next one. */
    page<T>(rows: T[], limit: number, positionOf: (row: T) => Position<K>) {
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        next_cursor: rows.length > limit && last !== undefined ? encode(positionOf(last)) : null,
      };
    },
  };
}
