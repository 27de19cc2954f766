import { useId } from 'react';
import { Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { Transfer } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { FINAL_STATUSES } from '../api/transfers';
import { StatusTimeline, TransferStatusBadge } from './transfer-status';
import { useTransfer } from './use-transfer';

/** A transfer just sent, followed until the bank's final word. */
export function TransferProgress({
  transfer: sent,
  headingRef,
  onSendAnother,
}: {
  transfer: Transfer;
  headingRef: React.RefObject<HTMLHeadingElement | null>;
  onSendAnother: () => void;
}) {
  const headingId = useId();
  const query = useTransfer(sent.id);
  const transfer = query.data ?? sent;
  const final = FINAL_STATUSES.has(transfer.status);

  return (
    <Card labelledBy={headingId} className="send-money__card send-money__progress">
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {final ? 'Transfer done' : 'Transfer on its way'}
      </h2>
      <p className="send-money__name">
        {formatNaira(transfer.amount_kobo)} to <UserText>{transfer.beneficiary.account_name}</UserText>
      </p>
      <p className="send-money__status" role="status">
        Status: <TransferStatusBadge status={transfer.status} />
      </p>
      {transfer.status === 'failed' ? (
        <Alert tone="error" title="The bank refused the transfer.">
          <p>
            {transfer.failure_reason ? (
              <>
                Reason: <UserText>{transfer.failure_reason}</UserText>.
              </>
            ) : (
              'No reason given.'
            )}{' '}
            Nothing was debited: the held {formatNaira(transfer.amount_kobo + transfer.fee_kobo)} is available
            again.
          </p>
        </Alert>
      ) : null}
      {transfer.status === 'successful' ? (
        <Alert tone="success">
          <p>
            {formatNaira(transfer.amount_kobo)} sent to <UserText>{transfer.beneficiary.bank_name}</UserText>,
            fee {formatNaira(transfer.fee_kobo)}.
          </p>
        </Alert>
      ) : null}
      {query.isError ? (
        <Alert tone="warning" title="The transfer's status could not be read just now.">
          <p>{errorMessage(query.error)} It was accepted: its status is on the transfer's page.</p>
        </Alert>
      ) : null}
      <h3 className="send-money__history-title">Status history</h3>
      <StatusTimeline transfer={transfer} />
      <div className="form-actions">
        <Link className="button button--secondary" href={`/transfers/${transfer.id}`}>
          View transfer
        </Link>
        <Link className="button button--secondary" href={`/accounts/${transfer.source_account_number}`}>
          Back to the account
        </Link>
        <Button variant="quiet" onPress={onSendAnother}>
          Send another
        </Button>
      </div>
    </Card>
  );
}
