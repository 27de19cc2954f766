import { OverviewPage } from '@/features/dashboard/overview/components/overview-page';
import { usePartner } from '../layouts';

export function OverviewRoute() {
  const { session, profile } = usePartner();
  return <OverviewPage session={session} profile={profile} />;
}
