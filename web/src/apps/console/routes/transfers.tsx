import { TransfersPage } from '@/features/console/transfers/components/transfers-page';

export function TransfersRoute() {
  return <TransfersPage />;
}
