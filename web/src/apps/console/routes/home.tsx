import { Navigate } from 'react-router';
import { Loading } from '@/components/ui/loading';
import { useOperatorSession } from '@/features/console/auth/api/session';
import { SignInRoute } from './sign-in';

/**
 * /console: the queue once signed in; otherwise sign-in right here (no redirect, so the page
 * loads with focus at its start, as any page does).
 */
export function HomeRoute() {
  const session = useOperatorSession();
  if (session.isPending) return <Loading />;
  return session.data?.session ? <Navigate to="/review" replace /> : <SignInRoute />;
}
