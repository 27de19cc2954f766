import { useParams } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { TransferPage } from '@/features/dashboard/transfers/components/transfer-page';
import { APP_NAME } from '../layouts';
import { usePartner } from '../signed-in-layout';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function TransferRoute() {
  const { session } = usePartner();
  const { transferId = '' } = useParams();
  if (!UUID.test(transferId)) return <NotFoundPage appName={APP_NAME} />;
  return (
    <TransferPage
      key={`${session.environment}:${transferId}`}
      id={transferId}
      environment={session.environment}
    />
  );
}
