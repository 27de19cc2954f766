import { AccountPage } from '@/features/console/account/components/account-page';
import { useOperator } from '../layouts';

export function AccountRoute() {
  return <AccountPage operator={useOperator()} />;
}
