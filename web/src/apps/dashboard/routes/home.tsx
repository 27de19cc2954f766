import { Navigate } from 'react-router';
import { QueryView } from '@/components/ui/query-view';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';

/** /dashboard: the overview once signed in, else sign-in. */
export function HomeRoute() {
  const session = usePartnerSession();
  return (
    <QueryView query={session} loading="Loading…" renderError={() => <Navigate to="/sign-in" replace />}>
      {(data) => <Navigate to={data.session ? '/overview' : '/sign-in'} replace />}
    </QueryView>
  );
}
