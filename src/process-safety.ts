import type { FastifyInstance } from 'fastify';

export interface ProcessSafetyNetOptions {
  /** How long in-flight requests may run after an uncaught exception before the process exits anyway. */
  graceMs?: number;
  /**
   * SIGTERM/SIGINT: how long in-flight requests and worker attempts may take (SHUTDOWN_GRACE_MS);
   * then the process exits 0 anyway, what is unfinished staying leased for another instance.
   */
  shutdownGraceMs?: number;
}

/**
 * The process-level handlers of a running service:
 * - SIGTERM/SIGINT: graceful shutdown within `shutdownGraceMs`, exit 0;
 * - an unhandled promise rejection is logged (error, with the stack) and the service keeps running:
 *   one forgotten `catch` must not take every partner's requests down;
 * - an uncaught exception is logged (fatal, with the stack), then the server shuts down gracefully
 *   and exits 1, because the process state is no longer known to be sound. In-flight requests get
 *   `graceMs` (10 s) to finish; the process never ends silently or with 0.
 */
export function installProcessSafetyNet(app: FastifyInstance, options: ProcessSafetyNetOptions = {}): void {
  const graceMs = options.graceMs ?? 10_000;
  const shutdownGraceMs = options.shutdownGraceMs ?? 20_000;
  const exit = (code: number) => process.exit(code);
  let closing: Promise<void> | undefined;
  let exitCode = 0;

  /** Stops accepting, lets in-flight requests finish, closes the database, then exits with `code`. */
  const shutdown = (reason: string, code: number, deadlineMs?: number): Promise<void> => {
    exitCode = Math.max(exitCode, code);
    if (deadlineMs !== undefined) {
      // Not unref'd: should closing stall on something without a handle, this timer still ends
      // the process with the right code instead of letting it drain out with 0.
      setTimeout(() => {
        app.log[exitCode === 0 ? 'warn' : 'fatal'](
          { reason },
          `shutdown did not finish within ${deadlineMs} ms: exiting, unfinished work stays leased`,
        );
        exit(exitCode);
      }, deadlineMs);
    }
    if (closing) return closing;
    app.log.info({ reason }, 'shutting down: draining in-flight requests');
    closing = app.close().then(
      () => {
        app.log.info({ reason, exit_code: exitCode }, 'shutdown complete');
        exit(exitCode);
      },
      (error: unknown) => {
        app.log.fatal({ err: error }, 'shutdown failed');
        exit(Math.max(exitCode, 1));
      },
    );
    return closing;
  };

  process.on('unhandledRejection', (reason) => {
    app.log.error(
      reason instanceof Error ? { err: reason } : { reason: String(reason) },
      'unhandled promise rejection; the service keeps running',
    );
  });
  process.on('uncaughtException', (error, origin) => {
    app.log.fatal({ err: error, origin }, 'uncaught exception: shutting down');
    void shutdown('uncaughtException', 1, graceMs);
  });
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0, shutdownGraceMs));
  process.once('SIGINT', () => void shutdown('SIGINT', 0, shutdownGraceMs));
}
