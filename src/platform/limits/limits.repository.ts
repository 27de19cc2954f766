import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Counts one more event for `key` in its fixed window with one atomic upsert, so however many
 * requests race, each gets its own number. A window older than `windowMs` starts over at 1.
 */
export async function countInWindow(
  db: Kysely<Database>,
  key: string,
  now: number,
  windowMs: number,
): Promise<{ count: number; windowStartedAt: number }> {
  const expired = sql<boolean>`rate_windows.window_started_at <= ${now - windowMs}`;
  const row = await db
    .insertInto('rate_windows')
    .values({ key, window_started_at: now, count: 1 })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet({
        count: sql<number>`case when ${expired} then 1 else rate_windows.count + 1 end`,
        window_started_at: sql<number>`case when ${expired} then ${now} else rate_windows.window_started_at end`,
      }),
    )
    .returning(['count', 'window_started_at'])
    .executeTakeFirstOrThrow();
  return { count: row.count, windowStartedAt: row.window_started_at };
}

/** Housekeeping: windows that ended more than `retainMs` ago. */
export async function purgeRateWindows(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom('rate_windows').where('window_started_at', '<', before).execute();
}
