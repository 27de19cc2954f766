import { TeamPage } from '@/features/dashboard/team/components/team-page';
import { usePartner } from '../layouts';

export function TeamRoute() {
  const { profile } = usePartner();
  return <TeamPage hasRepresentative={profile ? profile.representative !== null : undefined} />;
}
