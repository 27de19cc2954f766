import type { Middleware } from 'openapi-fetch';

/*
 * The dashboard's cookie session seen from the page (CONTRACT 7): the cookie itself is HttpOnly, so
 * what the page holds is the anti-forgery token the server gave with the session. One middleware on
 * the partner client sends it with every state-changing request and reports a 401 (the session
 * ended) once; uploads made with XMLHttpRequest use the same two functions.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Answers of these are about the credentials just typed (a wrong password), never an ended session. */
const PUBLIC_PATH =
  /\/client\/onboarding\/(login|register|verify-otp|resend-otp|password\/forgot|password\/reset)$/;

let csrfToken: string | null = null;
const endedListeners = new Set<() => void>();

/** Remembers the token of the session just opened or found (null once it is gone). */
export function setPartnerCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The headers a state-changing request of the signed-in page sends (none when signed out). */
export function antiForgeryHeaders(): Record<string, string> {
  return csrfToken === null ? {} : { 'X-CSRF-Token': csrfToken };
}

/** Calls `listener` when a request of a signed-in page is answered 401; returns the unsubscribe. */
export function onPartnerSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

/** A response arrived: a 401 to a signed-in page's request means the session is over. */
export function notePartnerResponse(url: string, status: number): void {
  if (status !== 401 || csrfToken === null) return;
  if (PUBLIC_PATH.test(new URL(url, window.location.href).pathname)) return;
  csrfToken = null;
  for (const listener of endedListeners) listener();
}

export const partnerSessionMiddleware: Middleware = {
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method)) {
      for (const [name, value] of Object.entries(antiForgeryHeaders())) request.headers.set(name, value);
    }
    return request;
  },
  onResponse({ request, response }) {
    notePartnerResponse(request.url, response.status);
  },
};
