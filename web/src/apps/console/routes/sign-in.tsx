import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { QueryView } from '@/components/ui/query-view';
import { useOperatorSession } from '@/features/console/auth/api/session';
import { BackOfficeOff } from '@/features/console/auth/components/back-office-off';
import { type SignInNotice, SignInPage } from '@/features/console/auth/components/sign-in-page';
import { safeReturnPath } from '@/lib/return-path';
import { SIGNED_OUT_PAGES } from '../layouts';

export function SignInRoute() {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const session = useOperatorSession();
  const next = safeReturnPath(searchParams.get('next'), SIGNED_OUT_PAGES) ?? '/review';
  const notice = (location.state as { notice?: SignInNotice } | null)?.notice;

  const form = <SignInPage notice={notice} onSignedIn={() => navigate(next, { replace: true })} />;
  // A failed check shows the form too: signing in then says what is wrong.
  return (
    <QueryView query={session} loading="Loading…" renderError={() => form}>
      {(data) =>
        data.session ? (
          <Navigate to={next} replace />
        ) : data.backOfficeOff ? (
          <BackOfficeOff
            onCheckAgain={() => void session.refetch()}
            isChecking={session.isFetching}
            checkedAt={session.dataUpdatedAt}
          />
        ) : (
          form
        )
      }
    </QueryView>
  );
}
