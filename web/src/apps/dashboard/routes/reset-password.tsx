import { useNavigate, useSearchParams } from 'react-router';
import { ResetPasswordPage } from '@/features/dashboard/auth/components/reset-password-page';

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
