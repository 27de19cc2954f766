import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { QueryView } from '@/components/ui/query-view';
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

  const form = (
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
  // A failed check shows the form too: signing in then says what is wrong.
  return (
    <QueryView query={session} loading="Loading…" renderError={() => form}>
      {(data) => (data.session ? <Navigate to={next} replace /> : form)}
    </QueryView>
  );
}
