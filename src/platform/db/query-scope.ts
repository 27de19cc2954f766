import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The statements run for one client's request (PostgreSQL), so that they can be cancelled once
 * that client has gone: a read nobody will receive must not hold a connection and a backend
 * (docs/operations.md, "Faults").
 */
export interface QueryScope {
  /** The client has gone: statements still running are cancelled, and new ones refused. */
  gone: boolean;
  /** The backends (PostgreSQL pids) running a statement of this scope now. */
  running: Set<number>;
}

const scopes = new AsyncLocalStorage<QueryScope>();

/** Runs `run` (and everything it starts) in `scope`. */
export function runInQueryScope<T>(scope: QueryScope, run: () => T): T {
  return scopes.run(scope, run);
}

export const currentQueryScope = (): QueryScope | undefined => scopes.getStore();

/** What a statement started for a client that has gone fails with: it is not sent. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError';
  readonly code = 'CLIENT_GONE';
  constructor() {
    super('the client has gone: the statement was not run');
  }
}
