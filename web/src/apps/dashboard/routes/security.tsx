import { SecurityPage } from '@/features/dashboard/security/components/security-page';

export function SecurityRoute() {
  return <SecurityPage />;
}
