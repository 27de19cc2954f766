import { TeamPage } from '@/features/dashboard/team/components/team-page';
import { usePartner } from '../signed-in-layout';

export function OfficersRoute() {
  const { profile } = usePartner();
  return <TeamPage hasRepresentative={profile ? profile.representative !== null : undefined} />;
}
