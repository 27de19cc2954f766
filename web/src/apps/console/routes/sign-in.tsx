import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { Loading } from '@/components/ui/loading';
import { useOperatorSession } from '@/features/console/auth/api/session';
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

  if (session.isPending) return <Loading />;
  if (session.data?.session) return <Navigate to={next} replace />;
  return <SignInPage notice={notice} onSignedIn={() => navigate(next, { replace: true })} />;
}
