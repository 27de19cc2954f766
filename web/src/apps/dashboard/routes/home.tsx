import { Navigate } from 'react-router';
import { Loading } from '@/components/ui/loading';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';

/** /dashboard: the overview once signed in, else sign-in. */
export function HomeRoute() {
  const session = usePartnerSession();
  if (session.isPending) return <Loading />;
  return <Navigate to={session.data?.session ? '/overview' : '/sign-in'} replace />;
}
