import { useEffect } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { AccountPage } from '@/features/dashboard/accounts/components/account-page';
import { APP_NAME } from '../layouts';
import { usePartner } from '../signed-in-layout';

export function AccountRoute() {
  const { session } = usePartner();
  const { accountNumber = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const justCreated = (location.state as { created?: boolean } | null)?.created === true;
  // The "ready" banner is for the visit that created the account: not for a reload or Back later.
  useEffect(() => {
    if (justCreated) {
      navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: null });
    }
  }, [justCreated, navigate, location.pathname, location.search]);
  if (!/^[0-9]{10}$/.test(accountNumber)) return <NotFoundPage appName={APP_NAME} />;
  return (
    <AccountPage
      // Another account, or the same one in the other environment, starts afresh.
      key={`${session.environment}:${accountNumber}`}
      accountNumber={accountNumber}
      environment={session.environment}
      justCreated={justCreated}
    />
  );
}
