import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { Loading } from '@/components/ui/loading';
import { usePartnerSession } from '@/features/dashboard/auth/api/session';
import { ForgotPasswordPage } from '@/features/dashboard/auth/components/forgot-password-page';
import { ResetPasswordPage } from '@/features/dashboard/auth/components/reset-password-page';
import { type SignInNotice, SignInPage } from '@/features/dashboard/auth/components/sign-in-page';
import { SignUpPage } from '@/features/dashboard/auth/components/sign-up-page';
import { VerifyPage } from '@/features/dashboard/auth/components/verify-page';
import { safeReturnPath } from '@/lib/return-path';
import { SIGNED_OUT_PAGES } from '../layouts';

/** /dashboard: the overview once signed in, else sign-in. */
export function HomeRoute() {
  const session = usePartnerSession();
  if (session.isPending) return <Loading />;
  return <Navigate to={session.data?.session ? '/overview' : '/sign-in'} replace />;
}

interface AccountState {
  notice?: SignInNotice;
  email?: string;
  justRegistered?: boolean;
}

export function SignInRoute() {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const session = usePartnerSession();
  const next = safeReturnPath(searchParams.get('next'), SIGNED_OUT_PAGES) ?? '/overview';
  const state = (location.state as AccountState | null) ?? {};

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

export function SignUpRoute() {
  const navigate = useNavigate();
  return (
    <SignUpPage
      onRegistered={(email) =>
        navigate(`/verify?email=${encodeURIComponent(email)}`, { state: { justRegistered: true } })
      }
    />
  );
}

export function VerifyRoute() {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const state = (location.state as AccountState | null) ?? {};
  return (
    <VerifyPage
      email={searchParams.get('email') ?? ''}
      justRegistered={state.justRegistered === true}
      onVerified={(email) => navigate('/sign-in', { state: { notice: 'verified', email } })}
    />
  );
}

export function ForgotPasswordRoute() {
  const navigate = useNavigate();
  return (
    <ForgotPasswordPage
      onCodeSent={(email) => navigate(`/reset-password?email=${encodeURIComponent(email)}`)}
    />
  );
}

export function ResetPasswordRoute() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const email = searchParams.get('email') ?? '';
  return (
    <ResetPasswordPage
      email={email}
      onReset={() => navigate('/sign-in', { replace: true, state: { notice: 'password-reset', email } })}
    />
  );
}
