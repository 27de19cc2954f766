import { AccountsPage } from '@/features/dashboard/accounts/components/accounts-page';
import { usePartner } from '../signed-in-layout';

export function AccountsRoute() {
  const { session } = usePartner();
  return <AccountsPage environment={session.environment} />;
}
