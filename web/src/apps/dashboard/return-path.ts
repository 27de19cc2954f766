/** Pages of the dashboard that are about signing in: never a place to come back to afterwards. */
const ACCOUNT_PAGES = ['/sign-in', '/sign-up', '/verify', '/forgot-password', '/reset-password'];

/**
 * Where to go after signing in: a path of this app from `?next=`, never another site
 * (`//host`, `/\host`) and never one of the signed-out pages.
 */
export function safeReturnPath(next: string | null): string | null {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  const path = next.split(/[?#]/)[0] ?? '';
  if (ACCOUNT_PAGES.includes(path)) return null;
  return next;
}

export const signInPath = (returnTo: string | null) =>
  returnTo && returnTo !== '/' && safeReturnPath(returnTo)
    ? `/sign-in?next=${encodeURIComponent(returnTo)}`
    : '/sign-in';
