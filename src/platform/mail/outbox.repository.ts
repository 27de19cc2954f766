import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../db/schema.js';
import type { MailOutboxTable } from './mail.table.js';

export type MailRow = Selectable<MailOutboxTable>;

export async function insertMail(db: Kysely<Database>, row: Insertable<MailOutboxTable>): Promise<void> {
  await db.insertInto('mail_outbox').values(row).execute();
}

/**
 * Leases up to `limit` due messages to one worker. The UPDATE re-checks each row's lease, so of several
 * instances choosing the same message only one gets it.
 */
export async function leaseDueMail(
  db: Kysely<Database>,
  lease: { now: number; leasedAt: number; until: number; token: string; limit: number },
): Promise<MailRow[]> {
  const due = await db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', lease.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', lease.leasedAt)]))
    .orderBy('next_attempt_at')
    .limit(lease.limit)
    .execute();
  if (due.length === 0) return [];
  return db
    .updateTable('mail_outbox')
    .set({ locked_until: lease.until, lease_token: lease.token })
    .where(
      'id',
      'in',
      due.map((row) => row.id),
    )
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', lease.leasedAt)]))
    .returningAll()
    .execute();
}

/**
 * Records an attempt's outcome and releases the lease; only the lease holder's outcome counts. A
 * message that was sent or given up loses its bodies (they may hold a one-time code).
 */
export async function settleMail(
  db: Kysely<Database>,
  mail: { id: string; token: string },
  outcome:
    | { status: 'sent'; at: number }
    | { status: 'failed'; error: string }
    | { status: 'pending'; nextAttemptAt: number; error: string },
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      locked_until: null,
      lease_token: null,
      ...(outcome.status === 'sent'
        ? { sent_at: outcome.at, body_encrypted: null, html_encrypted: null, last_error: null }
        : outcome.status === 'failed'
          ? { body_encrypted: null, html_encrypted: null, last_error: outcome.error }
          : { next_attempt_at: outcome.nextAttemptAt, last_error: outcome.error }),
    }))
    .where('id', '=', mail.id)
    .where('lease_token', '=', mail.token)
    .execute();
}

/** Housekeeping: settled messages (bodies already erased) after `before`. */
export async function purgeSettledMail(db: Kysely<Database>, before: number): Promise<void> {
  await db
    .deleteFrom('mail_outbox')
    .where('status', 'in', ['sent', 'failed'])
    .where('created_at', '<', before)
    .execute();
}

/** The pending messages, counted up to `cap`, and the earliest due time among them (mail_outbox_due_idx). */
export async function backlog(db: Kysely<Database>, cap: number) {
  const [counted, earliest] = await Promise.all([
    db
      .selectFrom((eb) =>
        eb.selectFrom('mail_outbox').select('id').where('status', '=', 'pending').limit(cap).as('pending'),
      )
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.min('next_attempt_at').as('due'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
  ]);
  return { pending: Number(counted.count), earliestDue: earliest.due === null ? null : Number(earliest.due) };
}
