import { AsyncLocalStorage } from 'node:async_hooks';
import type { Insertable, InsertObject, Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { withDirectStatements } from '../db/database.js';
import { isPostgresDb } from '../db/dialect.js';
import { isUniqueViolation } from '../db/errors.js';
import {
  type BatchInsert,
  type Guard,
  insertBatch,
  insertBatchAtomically,
  insertBatchGuarded,
  rowsOf,
} from '../db/insert-batch.js';
import type { Database } from '../db/schema.js';
import type { Environment } from '../environment.js';
import type { EventSerializer } from '../events/catalog.js';
import { outboxRows } from '../events/outbox.repository.js';
import { extend } from '../objects.js';
import { type AuditActor, type AuditEntry, auditRow, type RequestMeta } from './audit.repository.js';

/** What a change records about itself; who made it and from where come from the write. */
export type AuditChange = Omit<AuditEntry, keyof AuditActor> & Partial<AuditActor>;

/** An event of type `E`: a service's write is typed with its own module's event types. */
export interface EmittedEvent<E extends string = string> {
  type: E;
  environments: readonly Environment[];
  /** Serialized through the event type's payload schema: fields it does not list never leave. */
  data: unknown;
  partnerId?: number;
}

/** What a batch write may do: rows to insert, with the change's audit and webhook events. */
export interface BatchContext<E extends string = string> {
  /** The time of the change: every row, audit event and outbox event of the write carries it. */
  now: number;
  /** Inserts a row with the change (queued: written with the rest); a column may be a `sql` expression. */
  insert<T extends keyof Database>(table: T, row: InsertObject<Database, T>): void;
  /** Records the change in the audit trail, committed with it. */
  audit(change: AuditChange): void;
  /** Queues a webhook event for the actor's partner (or `partnerId`), committed with the change. */
  emit(event: EmittedEvent<E>): void;
}

export interface WriteContext<E extends string = string> extends BatchContext<E> {
  trx: Transaction<Database>;
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

/**
 * What else a write commits, in its own transaction, once its work has its result: an idempotent
 * request's answer (platform/idempotency), so the change and the answer a retry replays commit together.
 */
export type CommitHook = (trx: Transaction<Database>, result: unknown) => Promise<void>;

/** The hook of the request in whose async context a write runs, until a write commits with it. */
const commitHooks = new AsyncLocalStorage<{ hook: CommitHook | undefined }>();

/**
 * Runs `run` with `hook` on its first audited write to commit: a `write` calls it in its transaction
 * after its work; a `batch` becomes a transaction so that it can. A write that fails leaves the hook
 * to the next one (a retry); once one committed with it, or `run` is over, no other write sees it.
 */
export async function withCommitHook<T>(hook: CommitHook, run: () => Promise<T>): Promise<T> {
  const holder = { hook: hook as CommitHook | undefined };
  try {
    return await commitHooks.run(holder, run);
  } finally {
    holder.hook = undefined;
  }
}

/**
 * `E`: the event types the caller may emit. The composition root makes one over the whole catalog
 * and hands it to each service as `AuditedWrite<ItsEventTypes>`, so a module emits only its own.
 */
export interface AuditedWrite<E extends string = string> {
  /**
   * A transaction: `work` reads and changes rows through `trx`; its queued inserts, audit and
   * webhook events are written at its end, in one statement on PostgreSQL.
   */
  <T>(options: WriteOptions, work: (context: WriteContext<E>) => Promise<T>): Promise<T>;
  /**
   * A change made only of inserts (`build` queues them): one statement on PostgreSQL, atomic by
   * itself, so no transaction is opened: a single round trip.
   */
  batch<T>(options: WriteOptions, build: (context: BatchContext<E>) => T): Promise<T>;
  /**
   * A batch that holds only if `guard` (a conditional UPDATE) matches: on PostgreSQL one statement
   * with the inserts, no transaction; else (SQLite, or with a commit hook) a transaction. When the
   * guard matches nothing, nothing is written and `refused()` is thrown.
   */
  guarded<T>(
    options: WriteOptions,
    guard: Guard,
    build: (context: BatchContext<E>) => T,
    refused: () => Promise<Error>,
  ): Promise<T>;
}

/**
 * The one way a service changes state: the change, its audit event and its webhook events commit
 * together or not at all (docs/partner-guide.md, "Webhooks": no event is lost by a crash), with
 * `audit`/`emit` bound to the actor and the request. Unique violations are mapped (or retried) in one place.
 */
export function createAuditedWrite(
  db: Kysely<Database>,
  clock: Clock,
  serialize: EventSerializer,
): AuditedWrite {
  function queue(options: WriteOptions, now: number): { context: BatchContext; rows(): BatchInsert[] } {
    const batch: BatchInsert[] = [];
    const audits: Array<Insertable<Database['audit_events']>> = [];
    const events: Array<Insertable<Database['outbox_events']>> = [];
    const context: BatchContext = {
      now,
      insert: (table, row) => batch.push(rowsOf(table, [row])),
      audit: (change) => audits.push(auditRow(Object.assign({}, options.actor, change), options.meta, now)),
      emit: ({ partnerId, type, environments, data }) =>
        events.push(
          ...outboxRows(
            {
              partnerId: partnerId ?? requirePartner(options.actor),
              type,
              environments,
              payload: serialize(type, data),
            },
            now,
          ),
        ),
    };
    // The rows of the change first, then its audit and outbox rows (they may refer to it).
    return {
      context,
      rows: () => [...batch, rowsOf('audit_events', audits), rowsOf('outbox_events', events)],
    };
  }

  async function attempt<T>(options: WriteOptions, run: (now: number) => Promise<T>): Promise<T> {
    const attempts = options.attempts ?? 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(options.now ?? clock.now());
      } catch (error) {
        if (!options.onUniqueViolation || !isUniqueViolation(error)) throw error;
        const answer = await options.onUniqueViolation();
        if (answer) throw answer;
        if (attempt >= attempts) throw error;
      }
    }
  }

  const write = (async <T>(options: WriteOptions, work: (context: WriteContext) => Promise<T>) => {
    const holder = commitHooks.getStore();
    const hook = holder?.hook;
    if (holder) holder.hook = undefined;
    try {
      return await attempt(options, (now) =>
        db.transaction().execute((trx) =>
          withDirectStatements(db, trx, async () => {
            const queued = queue(options, now);
            const result = await work(extend(queued.context, { trx }));
            await insertBatch(trx, queued.rows());
            await hook?.(trx, result);
            return result;
          }),
        ),
      );
    } catch (error) {
      if (holder && hook) holder.hook = hook;
      throw error;
    }
  }) as AuditedWrite;

  write.batch = (options, build) => {
    if (commitHooks.getStore()?.hook) return write(options, async (context) => build(context));
    return attempt(options, async (now) => {
      const queued = queue(options, now);
      const result = build(queued.context);
      await insertBatchAtomically(db, queued.rows());
      return result;
    });
  };

  write.guarded = (options, guard, build, refused) => {
    if (commitHooks.getStore()?.hook || !isPostgresDb(db)) {
      // `refused` reads after the transaction: SQLite's one connection is the transaction's until then.
      return write(options, async (context) => {
        if (!(await guard.run(context.trx))) throw new GuardRefused();
        return build(context);
      }).catch(async (error: unknown) => {
        throw error instanceof GuardRefused ? await refused() : error;
      });
    }
    return attempt(options, async (now) => {
      const queued = queue(options, now);
      const result = build(queued.context);
      if (!(await insertBatchGuarded(db, guard, queued.rows()))) throw await refused();
      return result;
    });
  };

  return write;
}

/** A guarded write's guard matched nothing: its transaction rolls back, then the caller says why. */
class GuardRefused extends Error {}

function requirePartner(actor: AuditActor): number {
  if (actor.partnerId === null) throw new Error('an event needs a partner');
  return actor.partnerId;
}
