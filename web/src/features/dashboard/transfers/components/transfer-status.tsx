import { Badge, type BadgeTone } from '@/components/ui/badge';
import { DateTime } from '@/components/ui/date-time';
import { UserText } from '@/components/ui/user-text';
import type { Transfer, TransferStatus } from '@/lib/api/partner-types';
import { FINAL_STATUSES } from '../api/transfers';

const BADGES: Record<TransferStatus, { tone: BadgeTone; label: string; meaning: string }> = {
  pending: { tone: 'info', label: 'Pending', meaning: 'Accepted: the amount and fee are held.' },
  processing: { tone: 'info', label: 'Processing', meaning: 'Handed to the bank, awaiting its answer.' },
  successful: { tone: 'success', label: 'Successful', meaning: 'Delivered: the account was debited.' },
  failed: { tone: 'danger', label: 'Failed', meaning: 'Nothing was debited: the hold is released.' },
  reversed: {
    tone: 'warning',
    label: 'Reversed',
    meaning: 'The bank returned the money: the amount is credited back, the fee is kept.',
  },
};

export const TRANSFER_STATUS_OPTIONS = (Object.keys(BADGES) as TransferStatus[]).map((status) => ({
  id: status,
  label: BADGES[status].label,
}));

export const statusLabel = (status: TransferStatus) => BADGES[status].label;

export function TransferStatusBadge({ status }: { status: TransferStatus }) {
  return <Badge tone={BADGES[status].tone}>{BADGES[status].label}</Badge>;
}

/** Every state the transfer entered, oldest first, and what it waits for while it is not final. */
export function StatusTimeline({ transfer }: { transfer: Transfer }) {
  const waiting = !FINAL_STATUSES.has(transfer.status);
  return (
    <ol className="transfer-timeline">
      {transfer.status_history.map((change, index) => (
        <li
          // A status may come back in theory; its place in the list is its identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: the history only grows at its end.
          key={index}
          className={`transfer-timeline__step transfer-timeline__step--${change.status}`}
        >
          <span className="transfer-timeline__mark" aria-hidden="true" />
          <span className="transfer-timeline__text">
            <span className="transfer-timeline__status">{statusLabel(change.status)}</span>
            <DateTime value={change.at} />
            <span className="transfer-timeline__meaning">
              {BADGES[change.status].meaning}
              {(change.status === 'failed' || change.status === 'reversed') && transfer.failure_reason ? (
                <>
                  {' '}
                  Reason: <UserText>{transfer.failure_reason}</UserText>
                </>
              ) : null}
            </span>
          </span>
        </li>
      ))}
      {waiting ? (
        <li className="transfer-timeline__step transfer-timeline__step--waiting">
          <span className="transfer-timeline__mark" aria-hidden="true" />
          <span className="transfer-timeline__text">
            <span className="transfer-timeline__status">Waiting for the bank…</span>
            <span className="transfer-timeline__meaning">This page follows the transfer by itself.</span>
          </span>
        </li>
      ) : null}
    </ol>
  );
}
