import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { rateLimited } from '../errors/errors.js';
import { countInWindow } from './limits.repository.js';

export interface WindowLimit {
  max: number;
  windowMs: number;
}

/** Counts the event and, past `max` in the window, refuses it: 429 RATE_LIMITED with Retry-After. */
export async function enforceLimit(
  db: Kysely<Database>,
  key: string,
  now: number,
  limit: WindowLimit,
): Promise<void> {
  const { count, windowStartedAt } = await countInWindow(db, key, now, limit.windowMs);
  if (count > limit.max) throw rateLimited(windowStartedAt + limit.windowMs - now);
}
