import { ApiError } from '@baas/sdk';
import { useId } from 'react';
import { Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { Loading } from '@/components/ui/loading';
import { PageHeader } from '@/components/ui/page-header';
import { QueryError, QueryView } from '@/components/ui/query-view';
import { UserText, userText, visibleControls } from '@/components/ui/user-text';
import type { Environment, Transfer } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { StatusTimeline, TransferStatusBadge } from './transfer-status';
import { useTransfer } from './use-transfer';
import './transfers.css';

/** One transfer: every field, its status history (followed while it is on its way), its source account. */
export function TransferPage({ id, environment }: { id: string; environment: Environment }) {
  const transfer = useTransfer(id);
  const back = (
    <Link href="/transfers" className="transfers__back">
      ← Transfers
    </Link>
  );
  const heading = (
    <>
      <title>Transfer · Partner dashboard</title>
      <PageHeader title="Transfer" eyebrow={back} />
    </>
  );
  return (
    <QueryView
      query={transfer}
      loading={
        <>
          {heading}
          <Loading label="Loading the transfer…" />
        </>
      }
      renderError={(error) => (
        <>
          {heading}
          {error instanceof ApiError && error.status === 404 ? (
            <Alert tone="warning" title="No such transfer here.">
              <p>{`There is no transfer with this id in the ${environment} environment. Transfers of the other environment are not shown here.`}</p>
            </Alert>
          ) : (
            <QueryError
              error={error}
              title="The transfer could not be loaded."
              onRetry={() => transfer.refetch()}
            />
          )}
        </>
      )}
    >
      {(data) => <TransferDetails transfer={data} back={back} />}
    </QueryView>
  );
}

function TransferDetails({ transfer, back }: { transfer: Transfer; back: React.ReactNode }) {
  const detailsId = useId();
  const historyId = useId();
  const { beneficiary } = transfer;
  const title = `${formatNaira(transfer.amount_kobo)} to ${beneficiary.account_name}`;
  return (
    <div className="transfer">
      <title>{`${visibleControls(title)} · Partner dashboard`}</title>
      <PageHeader
        eyebrow={back}
        title={
          <>
            {formatNaira(transfer.amount_kobo)} to <UserText>{beneficiary.account_name}</UserText>
          </>
        }
        aside={<TransferStatusBadge status={transfer.status} />}
        description={
          <>
            Reference{' '}
            <code className="transfers__reference">
              <UserText>{transfer.reference}</UserText>
            </code>
          </>
        }
      />
      {transfer.failure_reason ? (
        <Alert
          tone={transfer.status === 'failed' ? 'error' : 'warning'}
          title={
            transfer.status === 'failed' ? 'The bank refused the transfer.' : 'The bank returned the money.'
          }
        >
          <p>
            Reason: <UserText>{transfer.failure_reason}</UserText>
          </p>
        </Alert>
      ) : null}
      <div className="transfer__top">
        <Card labelledBy={detailsId}>
          <h2 id={detailsId}>Details</h2>
          <DetailList
            items={[
              { term: 'Amount', value: formatNaira(transfer.amount_kobo) },
              {
                term: 'Fee',
                value:
                  transfer.fee_kobo === 0
                    ? `${formatNaira(0)} (book transfer)`
                    : formatNaira(transfer.fee_kobo),
              },
              { term: 'Total debited', value: formatNaira(transfer.amount_kobo + transfer.fee_kobo) },
              { term: 'Currency', value: transfer.currency },
              {
                term: 'From',
                value: (
                  <Link href={`/accounts/${transfer.source_account_number}`} className="transfers__number">
                    {transfer.source_account_number}
                  </Link>
                ),
              },
              { term: 'Beneficiary', value: <UserText>{beneficiary.account_name}</UserText> },
              {
                term: 'Account number',
                value: <span className="transfers__number">{beneficiary.account_number}</span>,
              },
              {
                term: 'Bank',
                value: (
                  <>
                    {userText(beneficiary.bank_name)} ({beneficiary.bank_code})
                  </>
                ),
              },
              { term: 'Narration', value: userText(transfer.narration) },
              {
                term: 'Reference',
                value: (
                  <code className="transfers__reference">
                    <UserText>{transfer.reference}</UserText>
                  </code>
                ),
              },
              {
                term: 'Session ID',
                value: transfer.session_id ? (
                  <code className="transfers__id">{transfer.session_id}</code>
                ) : (
                  <span className="muted">
                    {transfer.fee_kobo === 0
                      ? 'None: a book transfer never leaves this bank'
                      : 'Not known yet'}
                  </span>
                ),
              },
              ...(transfer.failure_reason
                ? [{ term: 'Failure reason', value: <UserText>{transfer.failure_reason}</UserText> }]
                : []),
              { term: 'Environment', value: transfer.environment === 'live' ? 'Live' : 'Sandbox' },
              { term: 'Created', value: <DateTime value={transfer.created_at} /> },
              { term: 'Updated', value: <DateTime value={transfer.updated_at} /> },
              { term: 'Transfer ID', value: <code className="transfers__id">{transfer.id}</code> },
            ]}
          />
        </Card>
        <Card labelledBy={historyId}>
          <h2 id={historyId}>Status history</h2>
          <StatusTimeline transfer={transfer} />
        </Card>
      </div>
    </div>
  );
}
