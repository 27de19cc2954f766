import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { Loading } from '@/components/ui/loading';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';
import { type SignInNotice, SignInPage } from '@/features/dashboard/auth/components/sign-in-page';
import { safeReturnPath } from '@/lib/return-path';
import { SIGNED_OUT_PAGES } from '../layouts';

export function SignInRoute() {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const session = usePartnerSession();
  const next = safeReturnPath(searchParams.get('next'), SIGNED_OUT_PAGES) ?? '/overview';
  const state = (location.state as { notice?: SignInNotice; email?: string } | null) ?? {};

  if (session.isPending) return <Loading />;
  if (session.data?.session) return <Navigate to={next} replace />;
  return (
    <SignInPage
      // A new notice (signed out, then ended again) starts the form afresh.
      key={location.key}
      notice={
        state.notice ?? (session.data?.gone === 'ended' ? 'session-ended' : (session.data?.gone ?? undefined))
      }
      defaultEmail={state.email}
      onSignedIn={() => navigate(next, { replace: true })}
    />
  );
}
