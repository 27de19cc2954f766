import { TransfersPage } from '@/features/dashboard/transfers/components/transfers-page';
import { usePartner } from '../signed-in-layout';

export function TransfersRoute() {
  const { session } = usePartner();
  return <TransfersPage environment={session.environment} />;
}
