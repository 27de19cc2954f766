import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { KeyRing } from '../crypto/keys.js';
import { decrypt, encrypt } from '../crypto/secret-box.js';
import { newId } from '../crypto/tokens.js';
import type { Database } from '../db/schema.js';
import { BACKLOG_CAP, type Backlog } from '../metrics/metrics.js';
import { createPollingWorker, type Pass } from '../worker/polling-worker.js';
import type { Mailer, MailMessage } from './mailer.js';
import * as repo from './outbox.repository.js';

/** Messages in flight per instance. */
const MAX_IN_FLIGHT = 4;
const LEASE_MIN_MS = 5 * 60 * 1000;

export interface MailOutboxOptions {
  db: Kysely<Database>;
  clock: Clock;
  keys: KeyRing;
  mailer: Mailer;
  log: Logger;
  /** How often other instances' messages and due retries are looked for. */
  pollMs: number;
  /** First retry delay, doubling each time until the message's discard time. */
  retryBaseMs: number;
  /** The SMTP timeout, which bounds one attempt. */
  attemptTimeoutMs: number;
}

export type MailOutbox = ReturnType<typeof createMailOutbox>;

/**
 * E-mail never holds up a request: the message is written (body encrypted) in the transaction of
 * the change that asked for it, and this worker sends it, retrying with backoff until the message
 * is useless (its code expired). `wake()` after the commit sends it at once; the poll picks up
 * retries and other instances' messages. A crash loses nothing: the lease expires and any instance
 * sends it (at least once).
 */
export function createMailOutbox(options: MailOutboxOptions) {
  const { db, clock, keys, mailer, log } = options;

  /** Call with the transaction of the change, so the message exists if and only if the change committed. */
  async function enqueue(trx: Kysely<Database>, message: MailMessage, discardAfter: number): Promise<void> {
    const now = clock.now();
    await repo.insertMail(trx, {
      id: newId(),
      recipient: message.to,
      subject: message.subject,
      body_encrypted: encrypt(keys.encryption, message.text),
      html_encrypted: message.html === undefined ? null : encrypt(keys.encryption, message.html),
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      locked_until: null,
      lease_token: null,
      discard_after: discardAfter,
      last_error: null,
      sent_at: null,
      created_at: now,
    });
  }

  async function send(mail: repo.MailRow, token: string): Promise<void> {
    const lease = { id: mail.id, token };
    if (mail.body_encrypted === null || clock.now() > mail.discard_after) {
      await repo.settleMail(db, lease, { status: 'failed', error: 'expired before it could be sent' });
      log.warn({ mail_id: mail.id }, 'e-mail given up: it expired before it could be sent');
      return;
    }
    try {
      await mailer.send({
        to: mail.recipient,
        subject: mail.subject,
        text: decrypt(keys.encryption, mail.body_encrypted),
        ...(mail.html_encrypted === null ? {} : { html: decrypt(keys.encryption, mail.html_encrypted) }),
      });
      await repo.settleMail(db, lease, { status: 'sent', at: clock.now() });
    } catch (error) {
      const now = clock.now();
      const nextAttemptAt = now + options.retryBaseMs * 2 ** Math.min(mail.attempts, 20);
      const detail = error instanceof Error ? error.message : String(error);
      const givesUp = nextAttemptAt > mail.discard_after;
      await repo.settleMail(
        db,
        lease,
        givesUp
          ? { status: 'failed', error: detail.slice(0, 500) }
          : { status: 'pending', nextAttemptAt, error: detail.slice(0, 500) },
      );
      log.error(
        { err: error, mail_id: mail.id, attempt: mail.attempts + 1, gave_up: givesUp },
        'e-mail could not be sent',
      );
    }
  }

  async function claim(room: number): Promise<Pass> {
    const token = randomUUID();
    // Due times follow the service clock (tests move it); a lease measures whether a worker is still
    // alive, which is real time. A lease outlives any one attempt by far (an attempt is bounded by a
    // few SMTP timeouts): a message is sent twice only if its worker died mid-attempt.
    const leasedAt = Date.now();
    const leased = await repo.leaseDueMail(db, {
      now: clock.now(),
      leasedAt,
      until: leasedAt + Math.max(options.attemptTimeoutMs * 6, LEASE_MIN_MS),
      token,
      limit: room,
    });
    return { jobs: leased.map((mail) => ({ id: mail.id, run: () => send(mail, token) })) };
  }

  const worker = createPollingWorker({
    name: 'mail outbox',
    log,
    pollMs: options.pollMs,
    maxInFlight: MAX_IN_FLIGHT,
    claim,
  });

  return {
    enqueue,
    wake: worker.wake,
    runOnce: worker.runOnce,
    start: worker.start,
    stop: worker.stop,
    halt: worker.halt,
    health: worker.health,
    /** The pending messages at scrape time (metrics). */
    backlog: async (): Promise<Backlog> => {
      const { pending, earliestDue } = await repo.backlog(db, BACKLOG_CAP);
      return {
        pending,
        oldestDueAt: earliestDue !== null && earliestDue <= clock.now() ? earliestDue : null,
      };
    },
    /** Housekeeping: settled messages (their bodies already erased) go after a day. */
    purgeSettled: () => repo.purgeSettledMail(db, clock.now() - 24 * 60 * 60 * 1000),
  };
}
