import { AsyncResource } from 'node:async_hooks';
import type { Logger } from 'pino';

/** What one pass found: jobs to run in the background, and work it already finished inline. */
export interface Pass {
  /** `id` names the job in the log line if it fails. */
  jobs: Array<{ id: string; run: () => Promise<void> }>;
  settled?: number;
}

/**
 * The pause after a pass that found work. Without it, a steady stream of account creations kept the
 * webhook worker in back-to-back passes of a few events each: four or more statements a pass, as many
 * passes as the database could answer, competing with the requests that made the events.
 */
const BATCH_WINDOW_MS = 50;

/** A worker loop's state for /readyz: passing, stopped, or a pass (or the wait for one) overdue. */
export type WorkerHealth = 'ok' | 'stopped' | 'stuck';

export interface PollingWorkerOptions {
  /** Named in log lines. */
  name: string;
  log: Logger;
  pollMs: number;
  maxInFlight: number;
  /** Claims at most `room` jobs (leases them in the database) and returns them. */
  claim(room: number): Promise<Pass>;
}

/**
 * A database-backed worker loop (webhook deliveries, e-mails): passes claim jobs while there is
 * room, jobs run in the background, a finished job or `wake()` starts the next pass at once, a pass
 * that found work is followed by the next after BATCH_WINDOW_MS, and an empty pass waits `pollMs`. A
 * pass that fails is logged and the loop goes on.
 */
export function createPollingWorker(options: PollingWorkerOptions) {
  const { name, log } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  let wanted = false;
  /** Real time (not the service clock) of the last pass's start or end: the loop's heartbeat. */
  let lastBeat = Date.now();
  const inFlight = new Set<Promise<void>>();
  // Passes run in the context the worker was made in (start-up), never in that of the request whose
  // wake() scheduled them: async context (a request's commit hook, audited-write.ts) stays with its
  // request.
  const detached = AsyncResource.bind((pass: () => void) => pass());

  async function runOnce(): Promise<number> {
    const room = options.maxInFlight - inFlight.size;
    if (room <= 0) return 0;
    const { jobs, settled = 0 } = await options.claim(room);
    for (const job of jobs) {
      const running: Promise<void> = job
        .run()
        .catch((error: unknown) => log.error({ err: error, job: job.id }, `${name} job failed`))
        .finally(() => {
          inFlight.delete(running);
          wake();
        });
      inFlight.add(running);
    }
    return jobs.length + settled;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => detached(pass), delay);
    timer.unref();
  }

  function pass(): void {
    timer = undefined;
    wanted = false;
    lastBeat = Date.now();
    running = runOnce()
      .catch((error: unknown) => {
        log.error({ err: error }, `${name} pass failed`);
        return 0;
      })
      .then((count) => {
        running = undefined;
        lastBeat = Date.now();
        // A wake during the pass (new work, a freed slot) looks again at once; a pass that found
        // work looks again after a short window, so a steady stream of new work is taken in
        // batches instead of by back-to-back passes; a pass that found nothing waits pollMs.
        schedule(wanted ? 0 : count > 0 ? Math.min(BATCH_WINDOW_MS, options.pollMs) : options.pollMs);
      });
  }

  /** New work was committed or a slot freed: look now rather than at the next poll. */
  function wake(): void {
    if (stopped) return;
    if (running) {
      wanted = true;
      return;
    }
    if (timer) clearTimeout(timer);
    schedule(0);
  }

  return {
    runOnce,
    wake,
    /**
     * `stuck` when a pass has run for longer than `stuckAfterMs` (a statement that never returns),
     * or no pass started within `pollMs` plus that after the last one ended (a lost timer).
     */
    health(stuckAfterMs: number): WorkerHealth {
      if (stopped) return 'stopped';
      const quietFor = Date.now() - lastBeat;
      return quietFor > stuckAfterMs + (running ? 0 : options.pollMs) ? 'stuck' : 'ok';
    },
    start(): void {
      if (!stopped) return;
      stopped = false;
      lastBeat = Date.now();
      schedule(0);
    },
    /**
     * Stops claiming: no pass starts after this (graceful shutdown's first step, so that nothing
     * new is leased while the jobs in flight finish).
     */
    halt(): void {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
    /** Stops claiming and waits for the pass and the jobs in flight. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}
