import type { Middleware } from 'openapi-fetch';

/*
 * The console's cookie session seen from the page: the cookie itself is HttpOnly, so what the page
 * holds is the anti-forgery token the server gave with the session. One middleware on the operator
 * client sends it with every state-changing request and reports a 401 (the session ended) once.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Sign-in answers 401 for a wrong password: that is no ended session. */
const SIGN_IN_PATH = /\/admin\/session\/(password|second-factor)$/;

let csrfToken: string | null = null;
const endedListeners = new Set<() => void>();

/** Remembers the token of the session just opened or found (null once it is gone). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Calls `listener` when a request of a signed-in page is answered 401; returns the unsubscribe. */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => {
    endedListeners.delete(listener);
  };
}

export const operatorSessionMiddleware: Middleware = {
  onRequest({ request }) {
    if (csrfToken !== null && !SAFE_METHODS.has(request.method)) {
      request.headers.set('X-CSRF-Token', csrfToken);
    }
    return request;
  },
  onResponse({ request, response }) {
    if (response.status !== 401 || csrfToken === null) return;
    if (SIGN_IN_PATH.test(new URL(request.url).pathname)) return;
    csrfToken = null;
    for (const listener of endedListeners) listener();
  },
};
