import { type QueryClient, type QueryKey, useQueryClient } from '@tanstack/react-query';
import type { Middleware } from 'openapi-fetch';
import { useEffect } from 'react';
import { unwrap } from './api-error';

/*
 * An app's cookie session seen from the page. The cookie is HttpOnly, so what the page holds is the
 * anti-forgery token the server gave with the session: every state-changing request sends it as
 * X-CSRF-Token, and a 401 to a request of a signed-in page means the session is over, which is
 * reported once. The openapi-fetch client uses the channel's middleware; requests made otherwise
 * (an upload with XMLHttpRequest, a CSV download with fetch) use antiForgeryHeaders and noteResponse.
 */

/** Why the page has no session any more: it ran out or ended elsewhere, or the person signed out here. */
export type SessionGone = 'ended' | 'signed-out';

/** What the page knows of its session: the signed-in one, or none and why (null: there was none). */
export interface SessionState<Session> {
  session: Session | null;
  gone: SessionGone | null;
}

export interface SessionChannelOptions {
  /** Where the SessionState is kept in the query cache. */
  sessionKey: QueryKey;
  /** The root of every query read with the session, dropped when it goes. */
  dataKey: QueryKey;
  /** Operations whose 401 is about the credentials just typed (a wrong password), not an ended session. */
  credentialPaths: RegExp;
}

interface FetchResult<T> {
  data?: { data?: T };
  error?: unknown;
  response: Response;
}

export interface SessionChannel<Session extends { csrf_token: string }> {
  readonly sessionKey: QueryKey;
  /** Sends the token with state-changing requests and notes their answers. */
  readonly middleware: Middleware;
  /** The headers a state-changing request sends (none when signed out). */
  antiForgeryHeaders(): Record<string, string>;
  /** An answer arrived: a 401 to a signed-in page's request ends the session. */
  noteResponse(url: string, status: number): void;
  /** Calls `listener` when the session ends; returns the unsubscribe. */
  onEnded(listener: () => void): () => void;
  /** The answer to "who is signed in?" as a SessionState: 401 is none, TOKEN_EXPIRED one that ended. */
  read(request: Promise<FetchResult<Session>>): Promise<SessionState<Session>>;
  /** A session just opened without the session query (a sign-in that answers it). */
  remember(queryClient: QueryClient, session: Session): void;
  /** A sign-in answered only the token: what the previous session read goes, the session is read anew. */
  signedIn(queryClient: QueryClient, csrfToken: string | null): void;
  /** The session is gone: nothing read with it stays in memory. */
  forget(queryClient: QueryClient, why: SessionGone): void;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createSessionChannel<Session extends { csrf_token: string }>(
  options: SessionChannelOptions,
): SessionChannel<Session> {
  let csrfToken: string | null = null;
  const endedListeners = new Set<() => void>();

  const antiForgeryHeaders = (): Record<string, string> =>
    csrfToken === null ? {} : { 'X-CSRF-Token': csrfToken };

  const noteResponse = (url: string, status: number) => {
    if (status !== 401 || csrfToken === null) return;
    if (options.credentialPaths.test(new URL(url, window.location.href).pathname)) return;
    csrfToken = null;
    for (const listener of endedListeners) listener();
  };

  return {
    sessionKey: options.sessionKey,
    middleware: {
      onRequest({ request }) {
        if (!SAFE_METHODS.has(request.method)) {
          for (const [name, value] of Object.entries(antiForgeryHeaders())) request.headers.set(name, value);
        }
        return request;
      },
      onResponse({ request, response }) {
        noteResponse(request.url, response.status);
      },
    },
    antiForgeryHeaders,
    noteResponse,
    onEnded(listener) {
      endedListeners.add(listener);
      return () => {
        endedListeners.delete(listener);
      };
    },
    async read(request) {
      const result = await request;
      if (result.response.status === 401) {
        csrfToken = null;
        const code = (result.error as { error_code?: string } | undefined)?.error_code;
        return { session: null, gone: code === 'TOKEN_EXPIRED' ? 'ended' : null };
      }
      const session = await unwrap(Promise.resolve(result));
      csrfToken = session.csrf_token;
      return { session, gone: null };
    },
    remember(queryClient, session) {
      csrfToken = session.csrf_token;
      queryClient.removeQueries({ queryKey: options.dataKey });
      queryClient.setQueryData<SessionState<Session>>(options.sessionKey, { session, gone: null });
    },
    signedIn(queryClient, token) {
      csrfToken = token;
      queryClient.removeQueries({ queryKey: options.dataKey });
    },
    forget(queryClient, why) {
      csrfToken = null;
      queryClient.removeQueries({ queryKey: options.dataKey });
      queryClient.setQueryData<SessionState<Session>>(options.sessionKey, { session: null, gone: why });
    },
  };
}

/** While mounted: when the session ends, what was read with it is dropped and the page learns why. */
export function useForgetEndedSession<Session extends { csrf_token: string }>(
  channel: SessionChannel<Session>,
): void {
  const queryClient = useQueryClient();
  useEffect(() => channel.onEnded(() => channel.forget(queryClient, 'ended')), [channel, queryClient]);
}
