import { WebhooksPage } from '@/features/dashboard/webhooks/components/webhooks-page';
import { usePartner } from '../signed-in-layout';

export function WebhooksRoute() {
  const { session } = usePartner();
  return <WebhooksPage environment={session.environment} />;
}
