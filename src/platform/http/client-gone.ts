import type { FastifyInstance } from 'fastify';
import { type QueryScope, runInQueryScope } from '../db/query-scope.js';

export interface ClientGoneOptions {
  /** Cancels the statements of these database backends (DatabaseHandle.cancel). */
  cancel(pids: readonly number[]): Promise<void>;
}

/**
 * Reads (GET, HEAD) run in a query scope (db/query-scope.ts); once their client has gone (the
 * connection closed before the answer was written), the statements still running for them are
 * cancelled and any later one is refused, so the connection goes back to the pool at once instead
 * of serving an answer nobody will read until the statement timeout. Writes are left to finish: the
 * client may come back with its Idempotency-Key, and a finished write answers that retry at once.
 */
export function registerClientGone(app: FastifyInstance, options: ClientGoneOptions): void {
  // A callback hook (no promise a request): the handler runs inside `done`, and so in the scope.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      done();
      return;
    }
    // A client that went while the request was authenticated or its body read: gone from the start.
    const scope: QueryScope = { gone: request.raw.socket?.destroyed ?? true, running: new Set() };
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      scope.gone = true;
      if (scope.running.size === 0) return;
      const pids = [...scope.running];
      request.log.info({ backends: pids }, 'the client has gone: its running statements are cancelled');
      options
        .cancel(pids)
        .catch((error: unknown) =>
          request.log.warn({ err: error }, 'the statements of a client that has gone could not be cancelled'),
        );
    });
    runInQueryScope(scope, done);
  });
}
