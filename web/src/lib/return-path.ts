/** Any origin will do: it only tells a path of this app from an address that would leave it. */
const ORIGIN = 'https://app.invalid';

/**
 * Where to go after signing in: `next` (from `?next=`) when it is a path of this app, else null.
 * Only a path and query exactly as the address bar writes them pass: whatever a URL parser would
 * read differently than it looks (`//host`, `/\host`, a tab or newline, `/a/../sign-in`) is refused
 * rather than interpreted, and so is a fragment, which the app never puts in a return path and
 * which could carry a set-up link's token. The app's signed-out pages (`signedOutPages`, matched
 * as the router does: in any case, with or without a trailing slash) are never a place to return to.
 */
export function safeReturnPath(next: string | null, signedOutPages: readonly string[]): string | null {
  if (!next?.startsWith('/')) return null;
  let url: URL;
  try {
    url = new URL(next, ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== ORIGIN || url.hash !== '' || `${url.pathname}${url.search}` !== next) return null;
  const path = url.pathname.replace(/\/+$/, '').toLowerCase();
  if (signedOutPages.some((page) => page.toLowerCase() === path)) return null;
  return next;
}

/** The sign-in page, with `?next=` back to `returnTo` when that is a place to return to. */
export function signInPath(returnTo: string | null, signedOutPages: readonly string[]): string {
  return returnTo && returnTo !== '/' && safeReturnPath(returnTo, signedOutPages)
    ? `/sign-in?next=${encodeURIComponent(returnTo)}`
    : '/sign-in';
}
