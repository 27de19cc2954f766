import { ApiKeysPage } from '@/features/dashboard/api-keys/components/api-keys-page';
import { usePartner } from '../signed-in-layout';

export function ApiKeysRoute() {
  const { session, profile } = usePartner();
  return (
    <ApiKeysPage environment={session.environment} liveAllowed={profile?.onboarding_status === 'active'} />
  );
}
