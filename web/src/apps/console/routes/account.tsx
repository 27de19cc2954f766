import { AccountPage } from '@/features/operator-account/components/account-page';
import { useOperator } from '../layouts';

export function AccountRoute() {
  return <AccountPage operator={useOperator()} />;
}
