import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Card } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { Loading } from '@/components/ui/loading';
import { PageHeader } from '@/components/ui/page-header';
import { QueryError, QueryView } from '@/components/ui/query-view';
import { UserText, userText } from '@/components/ui/user-text';
import type { Environment, VirtualAccount } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { useAccess } from '@/lib/partner-roles';
import { accountQuery } from '../api/accounts';
import { AccountStatusBadge } from './account-status-badge';
import { SendMoneyAction } from './send-money-action';
import { SimulateCredit } from './simulate-credit';
import { StatementDownload } from './statement-download';
import { StatusActions } from './status-actions';
import { TransactionsTable } from './transactions-table';
import './accounts.css';

export interface AccountPageProps {
  accountNumber: string;
  environment: Environment;
  /**
   * Arrived straight from creating it. Read once, when the page opens: the route then clears it from
   * the history entry, so a reload or a later visit through Back shows no "ready" banner.
   */
  justCreated: boolean;
}

/** One account: balance, details, lifecycle, sandbox credits, transactions and statement. */
export function AccountPage({ accountNumber, environment, justCreated: created }: AccountPageProps) {
  const account = useQuery(accountQuery(accountNumber));
  const [justCreated] = useState(created);
  const back = (
    <Link href="/accounts" className="accounts__back">
      ← Virtual accounts
    </Link>
  );

  const heading = (
    <>
      <title>{`Account ${accountNumber} · Partner dashboard`}</title>
      <PageHeader title={`Account ${accountNumber}`} eyebrow={back} />
    </>
  );
  return (
    <QueryView
      query={account}
      loading={
        <>
          {heading}
          <Loading label="Loading the account…" />
        </>
      }
      renderError={(error) => (
        <>
          {heading}
          {error instanceof ApiError && error.status === 404 ? (
            <Alert tone="warning" title="No such account here.">
              <p>
                {`There is no account ${accountNumber} in the ${environment} environment. Accounts of the other environment are not shown here.`}
              </p>
            </Alert>
          ) : (
            <QueryError
              error={error}
              title="The account could not be loaded."
              onRetry={() => account.refetch()}
            />
          )}
        </>
      )}
    >
      {(data) => (
        <AccountDetails account={data} environment={environment} justCreated={justCreated} back={back} />
      )}
    </QueryView>
  );
}

function AccountDetails({
  account,
  environment,
  justCreated,
  back,
}: {
  account: VirtualAccount;
  environment: Environment;
  justCreated: boolean;
  back: React.ReactNode;
}) {
  const balanceId = useId();
  const detailsId = useId();
  const canMoveMoney = useAccess('money').allowed;
  const customer = `${account.customer.first_name} ${account.customer.last_name}`;

  return (
    <div className="account">
      <title>{`Account ${account.account_number} · Partner dashboard`}</title>
      <PageHeader
        eyebrow={back}
        title={`Account ${account.account_number}`}
        aside={<AccountStatusBadge status={account.status} />}
        description={<UserText>{account.account_name}</UserText>}
      />
      {justCreated ? (
        <Alert tone="success" className="account__notice">
          <p>
            Account {account.account_number} is ready for <UserText>{customer}</UserText>. Share the number
            and bank with them.
          </p>
        </Alert>
      ) : null}
      {account.status !== 'active' ? (
        <Alert
          tone={account.status === 'closed' ? 'info' : 'warning'}
          className="account__notice"
          title={account.status === 'closed' ? 'This account is closed.' : 'This account is inactive.'}
        >
          <p>
            {account.status === 'closed'
              ? 'It takes no credits and cannot change again; its number is never issued again.'
              : 'Credits to it are refused until it is reactivated.'}
            {account.status_reason ? (
              <>
                {' '}
                Reason: <UserText>{account.status_reason}</UserText>
              </>
            ) : null}
          </p>
        </Alert>
      ) : null}
      <div className="account__top">
        <Card labelledBy={balanceId} className="account__balance">
          <h2 id={balanceId} className="account__balance-label">
            Balance
          </h2>
          <p className="account__balance-value">{formatNaira(account.balance_kobo)}</p>
          <p className="muted">Every credit less every debit.</p>
          <dl className="account__available">
            <dt>Available balance</dt>
            <dd className="account__available-value">{formatNaira(account.available_balance_kobo)}</dd>
          </dl>
          <p className="muted">What can be sent now: the balance less transfers out still in progress.</p>
          <SendMoneyAction account={account} />
          <StatusActions account={account} />
        </Card>
        <Card labelledBy={detailsId}>
          <h2 id={detailsId}>Details</h2>
          <DetailList
            items={[
              {
                term: 'Account number',
                value: (
                  <span className="account__number">
                    <code>{account.account_number}</code>
                    <CopyButton
                      text={account.account_number}
                      label="Copy"
                      accessibleName={`Copy account number ${account.account_number}`}
                    />
                  </span>
                ),
              },
              { term: 'Account name', value: <UserText>{account.account_name}</UserText> },
              { term: 'Bank', value: `${account.bank_name} (${account.bank_code})` },
              { term: 'Customer', value: <UserText>{customer}</UserText> },
              { term: 'E-mail', value: userText(account.customer.email) },
              { term: 'Phone', value: userText(account.customer.phone) },
              { term: 'Environment', value: account.environment === 'live' ? 'Live' : 'Sandbox' },
              { term: 'Created', value: <DateTime value={account.created_at} /> },
              ...(account.status_changed_at
                ? [{ term: 'Status changed', value: <DateTime value={account.status_changed_at} /> }]
                : []),
            ]}
          />
        </Card>
      </div>
      {environment === 'sandbox' && account.status !== 'closed' && canMoveMoney ? (
        <SimulateCredit account={account} />
      ) : null}
      <TransactionsTable accountNumber={account.account_number} />
      <StatementDownload accountNumber={account.account_number} />
    </div>
  );
}
