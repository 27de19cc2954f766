/**
 * Where to go after signing in: a path of this app from `?next=`, never another site
 * (`//host`, `/\host`) and never the sign-in page itself.
 */
export function safeReturnPath(next: string | null): string | null {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  if (next === '/sign-in' || next.startsWith('/sign-in?')) return null;
  return next;
}

export const signInPath = (returnTo: string | null) =>
  returnTo && returnTo !== '/' ? `/sign-in?next=${encodeURIComponent(returnTo)}` : '/sign-in';
