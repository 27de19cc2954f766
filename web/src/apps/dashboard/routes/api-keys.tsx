import { RoleNote } from '@/components/role-note';
import { ApiKeysPage } from '@/features/dashboard/api-keys/components/api-keys-page';
import { useAccess } from '@/lib/partner-roles';
import { usePartner } from '../signed-in-layout';

export function ApiKeysRoute() {
  const { session, profile } = usePartner();
  // Listing keys needs the role too (the server answers 403): only the reason, then.
  if (!useAccess('keys').allowed) return <RoleNote access="keys" />;
  return (
    <ApiKeysPage environment={session.environment} liveAllowed={profile?.onboarding_status === 'active'} />
  );
}
