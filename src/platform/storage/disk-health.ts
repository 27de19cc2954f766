import type { FastifyBaseLogger } from 'fastify';

/**
 * How long after a write was refused for a full disk /readyz keeps reporting it, unless a write
 * succeeds first: the Retry-After of STORAGE_FULL. Bounded, so that an instance taken out of
 * rotation (and so sent no writes that could succeed) is tried again.
 */
export const DISK_FULL_HOLD_MS = 60_000;

/**
 * Whether writes are failing for a full disk (the database's or the file store's), as /readyz
 * reports it (`storage`). Learned from the requests themselves: a STORAGE_FULL answer marks it
 * full, a write answered below 400 marks it ok again. The episode is logged once at its start and
 * once at its end; each refused request still logs its own cause.
 */
export function createDiskHealth() {
  let fullSince: number | undefined;
  let lastRefusedAt = 0;
  return {
    /** A write was refused for a full disk. */
    refused(log: FastifyBaseLogger, error: unknown): void {
      const now = Date.now();
      lastRefusedAt = now;
      if (fullSince !== undefined) return;
      fullSince = now;
      log.error(
        { err: error },
        'the disk is full: writes are refused (503 STORAGE_FULL) until space is freed',
      );
    },
    /** True while an episode is open: the caller then reports a successful write. */
    get suspect(): boolean {
      return fullSince !== undefined;
    },
    /** A write succeeded. */
    written(log: FastifyBaseLogger): void {
      if (fullSince === undefined) return;
      log.info({ full_for_ms: Date.now() - fullSince }, 'the disk has room again: writes succeed');
      fullSince = undefined;
    },
    state(): 'ok' | 'full' {
      if (fullSince === undefined) return 'ok';
      return Date.now() - lastRefusedAt < DISK_FULL_HOLD_MS ? 'full' : 'ok';
    },
  };
}

export type DiskHealth = ReturnType<typeof createDiskHealth>;
