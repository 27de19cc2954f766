import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { RoleNote } from '@/components/role-note';
import { PageHeader } from '@/components/ui/page-header';
import { accountQuery } from '@/features/dashboard/accounts/api/accounts';
import { SendMoneyPage } from '@/features/dashboard/transfers/components/send-money-page';
import { useAccess } from '@/lib/partner-roles';
import { APP_NAME } from '../layouts';
import { usePartner } from '../signed-in-layout';

export function SendMoneyRoute() {
  const { accountNumber = '' } = useParams();
  const money = useAccess('money');
  if (!/^[0-9]{10}$/.test(accountNumber)) return <NotFoundPage appName={APP_NAME} />;
  if (!money.allowed) {
    return (
      <div>
        <title>Send money · Partner dashboard</title>
        <PageHeader title="Send money" />
        <RoleNote access="money" />
      </div>
    );
  }
  return <SendMoney accountNumber={accountNumber} />;
}

function SendMoney({ accountNumber }: { accountNumber: string }) {
  const { session } = usePartner();
  const account = useQuery(accountQuery(accountNumber));
  // Another account, or the same one in the other environment, starts afresh.
  return (
    <SendMoneyPage
      key={`${session.environment}:${accountNumber}`}
      accountNumber={accountNumber}
      account={account}
    />
  );
}
