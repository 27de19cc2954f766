import { Link } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { UserText, visibleControls } from '@/components/ui/user-text';
import type { AdminTransfer } from '@/lib/api/operator-types';
import { formatNaira } from '@/lib/money';
import { ENVIRONMENTS, isOpen, STATUSES } from './transfer-labels';

const REASON_TITLES: Partial<Record<AdminTransfer['status'], string>> = {
  failed: 'Why it failed',
  reversed: 'Why it was reversed',
};

/** To the second: the steps of a transfer are often seconds apart. */
const preciseTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** One transfer in full, over the list: its parties, money, the bank's answers and its status history. */
export function TransferDialog({
  transfer,
  onClose,
}: {
  transfer: AdminTransfer | null;
  onClose: () => void;
}) {
  return (
    <ModalDialog
      title={transfer ? `Transfer ${visibleControls(transfer.reference)}` : 'Transfer'}
      isOpen={transfer !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      {(close) => (transfer ? <TransferDetails transfer={transfer} close={close} /> : null)}
    </ModalDialog>
  );
}

function TransferDetails({ transfer, close }: { transfer: AdminTransfer; close: () => void }) {
  const status = STATUSES[transfer.status];
  return (
    <div className="dialog__body transfer-details">
      <p className="transfer-details__summary">
        <span className="transfer-details__amount">{formatNaira(transfer.amount_kobo)}</span>
        <Badge tone={status.tone}>{status.label}</Badge>
        {transfer.stuck ? <Badge tone="danger">Stuck</Badge> : null}
      </p>
      {transfer.failure_reason ? (
        <Alert
          tone={transfer.status === 'failed' ? 'error' : 'warning'}
          title={REASON_TITLES[transfer.status] ?? "The bank's last answer"}
        >
          <p>
            <UserText>{transfer.failure_reason}</UserText>
          </p>
        </Alert>
      ) : null}
      {transfer.stuck ? (
        <Alert tone="warning" title="The bank owes an answer">
          <p>
            Still {transfer.status} 10 minutes after it was accepted. The server keeps asking the bank for 24
            hours; after that, settle it with the bank.
          </p>
        </Alert>
      ) : null}
      <DetailList
        items={[
          {
            term: 'Partner',
            value: (
              <>
                <Link href={`/partners/${transfer.company_id}`}>
                  <UserText>{transfer.business_name}</UserText>
                </Link>{' '}
                · Company {transfer.company_id} · {ENVIRONMENTS[transfer.environment]}
              </>
            ),
          },
          {
            term: 'From account',
            value: <span className="transfers__number">{transfer.source_account_number}</span>,
          },
          {
            term: 'Beneficiary',
            value: (
              <>
                <UserText>{transfer.beneficiary.account_name}</UserText>
                <span className="data-table__secondary">
                  <UserText>{transfer.beneficiary.bank_name}</UserText> ({transfer.beneficiary.bank_code}) ·{' '}
                  <span className="transfers__number">{transfer.beneficiary.account_number}</span>
                </span>
              </>
            ),
          },
          { term: 'Amount', value: formatNaira(transfer.amount_kobo) },
          { term: 'Fee', value: formatNaira(transfer.fee_kobo) },
          {
            term: transfer.status === 'failed' ? 'Held, then released' : 'Amount and fee',
            value: formatNaira(transfer.amount_kobo + transfer.fee_kobo),
          },
          { term: 'Narration', value: transfer.narration ? <UserText>{transfer.narration}</UserText> : null },
          {
            term: 'Session ID',
            value: transfer.session_id ? (
              <code className="transfers__session">{transfer.session_id}</code>
            ) : null,
          },
          {
            term: 'Response code',
            value: transfer.response_code ? <code>{transfer.response_code}</code> : null,
          },
          {
            term: 'Status queries',
            value: (
              <>
                {transfer.query_attempts === 0 ? 'None yet' : `${transfer.query_attempts} so far`}
                {isOpen(transfer.status) && transfer.next_query_at ? (
                  <>
                    {'; next '}
                    <DateTime value={transfer.next_query_at} />
                  </>
                ) : null}
              </>
            ),
          },
          { term: 'Transfer ID', value: <code>{transfer.id}</code> },
        ]}
      />
      <section aria-labelledby="transfer-history-title">
        <h3 id="transfer-history-title" className="transfer-details__heading">
          Status history
        </h3>
        <ol className="transfer-history">
          {transfer.status_history.map((change) => (
            <li key={`${change.status}-${change.at}`} className="transfer-history__step">
              <Badge tone={STATUSES[change.status].tone}>{STATUSES[change.status].label}</Badge>
              <time dateTime={change.at}>{preciseTime.format(new Date(change.at))}</time>
            </li>
          ))}
        </ol>
      </section>
      <div className="dialog__actions">
        <Button variant="secondary" onPress={close}>
          Close
        </Button>
      </div>
    </div>
  );
}
