import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { BACKLOG_CAP, type Backlog, TRANSFERS_CAP } from '../../platform/metrics/metrics.js';
import { extend } from '../../platform/objects.js';
import { createPollingWorker, type Pass } from '../../platform/worker/polling-worker.js';
import type { Settlement } from './settlement.js';
import * as repo from './transfers.repository.js';
import { TRANSFER_STATUSES } from './transfers.table.js';

/** Transfers in flight per instance (each a call to the bank at most). */
const MAX_IN_FLIGHT = 16;

export interface TransferWorkerOptions {
  db: Kysely<Database>;
  clock: Clock;
  log: Logger;
  pollMs: number;
  /** How long a leased transfer is this instance's: longer than a call to the bank may take. */
  leaseMs: number;
  /** Settlement's step for one transfer it leased (settlement.ts `advance`). */
  advance: Settlement['advance'];
}

/**
 * Drives transfers to a final state (docs/partner-guide.md, "Sending money"): each pass leases the
 * due ones (pending: to send; processing: to ask the bank; successful awaiting a late reversal) by
 * one conditional UPDATE each, so one instance handles a transfer at a time, and a lease that
 * outlives a crashed instance simply expires. A pending transfer is recorded `processing` before the
 * bank is called and is never sent again: a crash anywhere leaves it to the status query.
 */
export function createTransferWorker(options: TransferWorkerOptions) {
  const { db, clock, log } = options;
  /** The transfers this instance is advancing: a pass never leases them again meanwhile. */
  const inFlight = new Set<string>();

  async function claim(room: number): Promise<Pass> {
    const now = clock.now();
    const candidates = await repo.due(db, now, room + inFlight.size);
    const jobs: Pass['jobs'] = [];
    for (const candidate of candidates) {
      if (jobs.length >= room) break;
      if (inFlight.has(candidate.id)) continue;
      const leased = await repo.lease(db, candidate, now + options.leaseMs);
      if (!leased) continue;
      inFlight.add(leased.id);
      jobs.push({
        id: leased.id,
        run: () => options.advance(leased).finally(() => inFlight.delete(leased.id)),
      });
    }
    return { jobs };
  }

  const worker = createPollingWorker({
    name: 'transfer worker',
    log,
    pollMs: options.pollMs,
    maxInFlight: MAX_IN_FLIGHT,
    claim,
  });
  return extend(worker, {
    /** The transfers owed a step at scrape time (metrics). */
    backlog: async (): Promise<Backlog> => {
      const { pending, earliestDue } = await repo.backlog(db, BACKLOG_CAP);
      return {
        pending,
        oldestDueAt: earliestDue !== null && earliestDue <= clock.now() ? earliestDue : null,
      };
    },
    /** Transfers in each status, each counted up to TRANSFERS_CAP (metrics). */
    byStatus: (): Promise<Map<string, number>> => repo.countByStatus(db, TRANSFER_STATUSES, TRANSFERS_CAP),
  });
}
