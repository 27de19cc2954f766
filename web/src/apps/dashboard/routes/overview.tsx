import { OverviewPage } from '@/features/dashboard/overview/components/overview-page';
import { usePartner } from '../signed-in-layout';

export function OverviewRoute() {
  const { session, profile } = usePartner();
  return <OverviewPage session={session} profile={profile} />;
}
