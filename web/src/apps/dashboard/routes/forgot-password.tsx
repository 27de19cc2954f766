import { useNavigate } from 'react-router';
import { ForgotPasswordPage } from '@/features/dashboard/auth/components/forgot-password-page';

export function ForgotPasswordRoute() {
  const navigate = useNavigate();
  return (
    <ForgotPasswordPage
      onCodeSent={(email) => navigate(`/reset-password?email=${encodeURIComponent(email)}`)}
    />
  );
}
