import { MoneyInPage } from '@/features/console/money-in/components/money-in-page';

export function MoneyInRoute() {
  return <MoneyInPage />;
}
