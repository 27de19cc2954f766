import { UsersPage } from '@/features/dashboard/users/components/users-page';

export function UsersRoute() {
  return <UsersPage />;
}
