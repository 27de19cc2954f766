import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { VerifyPage } from '@/features/dashboard/auth/components/verify-page';

export function VerifyRoute() {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  return (
    <VerifyPage
      email={searchParams.get('email') ?? ''}
      justRegistered={(location.state as { justRegistered?: boolean } | null)?.justRegistered === true}
      onVerified={(email) => navigate('/sign-in', { state: { notice: 'verified', email } })}
    />
  );
}
