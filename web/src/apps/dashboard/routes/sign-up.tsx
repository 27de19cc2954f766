import { useNavigate } from 'react-router';
import { SignUpPage } from '@/features/dashboard/auth/components/sign-up-page';

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
