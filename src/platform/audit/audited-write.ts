import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import type { Environment } from '../environment.js';
import { type EventSerializer, type EventType, enqueueEvent } from '../events/outbox.repository.js';
import { type AuditActor, type AuditEntry, insertAuditEvent, type RequestMeta } from './audit.repository.js';

/** What a change records about itself; who made it and from where come from the write. */
export type AuditChange = Omit<AuditEntry, keyof AuditActor> & Partial<AuditActor>;

export interface WriteContext {
  trx: Transaction<Database>;
  /** The time of the change: every row, audit event and outbox event of the write carries it. */
  now: number;
  /** Records the change in the audit trail, committed with it. */
  audit(change: AuditChange): Promise<void>;
  /** Queues a webhook event for the actor's partner (or `partnerId`), committed with the change. */
  emit(event: {
    type: EventType;
    environments: readonly Environment[];
    /** Serialized through the event type's payload schema: fields it does not list never leave. */
    data: unknown;
    partnerId?: number;
  }): Promise<void>;
}

export interface WriteOptions {
  /** Who makes the change (the audit actor; its partner receives the events). */
  actor: AuditActor;
  meta: RequestMeta | null;
  now?: number;
  /**
   * What a unique-constraint violation means: an error to answer with, or undefined for a collision
   * of a value the write draws at random (the write then runs again, up to `attempts` times).
   */
  onUniqueViolation?: () => Error | undefined | Promise<Error | undefined>;
  attempts?: number;
}

export type AuditedWrite = <T>(
  options: WriteOptions,
  work: (context: WriteContext) => Promise<T>,
) => Promise<T>;

/**
 * The one way a service changes state: a transaction whose callback gets the transaction, the time,
 * and `audit`/`emit` bound to the actor and request, so the change, its audit event and its webhook
 * events commit together or not at all (CONTRACT 4.5: no event is lost by a crash).
 */
export function createAuditedWrite(
  db: Kysely<Database>,
  clock: Clock,
  serialize: EventSerializer,
): AuditedWrite {
  return async (options, work) => {
    const attempts = options.attempts ?? 1;
    for (let attempt = 1; ; attempt++) {
      const now = options.now ?? clock.now();
      try {
        return await db.transaction().execute((trx) =>
          work({
            trx,
            now,
            audit: (change) => insertAuditEvent(trx, { ...options.actor, ...change }, options.meta, now),
            emit: ({ partnerId, type, environments, data }) =>
              enqueueEvent(
                trx,
                {
                  partnerId: partnerId ?? requirePartner(options.actor),
                  type,
                  environments,
                  payload: serialize(type, data),
                },
                now,
              ),
          }),
        );
      } catch (error) {
        if (!options.onUniqueViolation || !isUniqueViolation(error)) throw error;
        const answer = await options.onUniqueViolation();
        if (answer) throw answer;
        if (attempt >= attempts) throw error;
      }
    }
  };
}

function requirePartner(actor: AuditActor): number {
  if (actor.partnerId === null) throw new Error('an event needs a partner');
  return actor.partnerId;
}
