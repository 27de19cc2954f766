import { UsersPage } from '@/features/dashboard/users/components/users-page';
import { usePartner } from '../signed-in-layout';

export function UsersRoute() {
  const { session } = usePartner();
  return <UsersPage email={session.user.email} />;
}
