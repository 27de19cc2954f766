import { Navigate } from 'react-router';
import { QueryView } from '@/components/ui/query-view';
import { useOperatorSession } from '@/features/console/auth/api/session';
import { SignInRoute } from './sign-in';

/**
 * /console: the queue once signed in; otherwise sign-in right here (no redirect, so the page
 * loads with focus at its start, as any page does).
 */
export function HomeRoute() {
  const session = useOperatorSession();
  // A failed check shows sign-in too: signing in then says what is wrong.
  return (
    <QueryView query={session} loading="Loading…" renderError={() => <SignInRoute />}>
      {(data) => (data.session ? <Navigate to="/review" replace /> : <SignInRoute />)}
    </QueryView>
  );
}
