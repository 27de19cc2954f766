import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Cell, Column, Row, TableBody, TableHeader } from 'react-aria-components';
import { DateTime } from '@/components/ui/date-time';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText, userText, visibleControls } from '@/components/ui/user-text';
import type { Transaction } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { transactionsQuery } from '../api/accounts';

const KIND_LABELS: Record<Transaction['kind'], string> = {
  inbound_transfer: 'Transfer in',
  transfer: 'Transfer out',
  fee: 'Fee',
  reversal: 'Reversal',
  book_transfer: 'Book transfer',
};

/** The account's entries, newest first, a page at a time: who paid or was paid, and the balance after. */
export function TransactionsTable({ accountNumber }: { accountNumber: string }) {
  const pages = useCursorPages(accountNumber);
  const transactions = useQuery(transactionsQuery(accountNumber, pages.cursor));
  const headingId = useId();

  return (
    <section aria-labelledby={headingId} className="account__section">
      <h2 id={headingId}>Transactions</h2>
      <QueryView
        query={transactions}
        loading="Loading transactions…"
        errorTitle="The transactions could not be loaded."
      >
        {(data) => (
          <>
            <DataTable aria-label="Transactions" className="transactions-table">
              <TableHeader>
                <Column isRowHeader className="transactions-table__date">
                  Date
                </Column>
                <Column>Details</Column>
                <Column>Counterparty</Column>
                <Column>Reference</Column>
                <Column className="transactions-table__money">Amount</Column>
                <Column className="transactions-table__money">Balance after</Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => <p className="data-table__empty">No transactions yet.</p>}
              >
                {(transaction) => (
                  <Row id={transaction.id} textValue={visibleControls(transaction.reference)}>
                    <Cell>
                      <DateTime value={transaction.created_at} variant="stacked" />
                    </Cell>
                    <Cell>
                      <CellLabel>Details</CellLabel>
                      <span className="transactions-table__kind">{KIND_LABELS[transaction.kind]}</span>
                      <span className="data-table__secondary">
                        {userText(transaction.narration) ?? 'No narration'}
                      </span>
                    </Cell>
                    <Cell>
                      <CellLabel>{transaction.type === 'credit' ? 'From' : 'To'}</CellLabel>
                      <Counterparty transaction={transaction} />
                    </Cell>
                    <Cell>
                      <CellLabel>Reference</CellLabel>
                      <code className="accounts__reference">
                        <UserText>{transaction.reference}</UserText>
                      </code>
                      {transaction.session_id ? (
                        <span className="data-table__secondary transactions-table__session">
                          Session ID <code className="transactions-table__id">{transaction.session_id}</code>
                        </span>
                      ) : null}
                    </Cell>
                    <Cell>
                      <CellLabel>Amount</CellLabel>
                      <span className={`accounts__amount accounts__amount--${transaction.type}`}>
                        {transaction.type === 'credit' ? '+' : '−'}
                        {formatNaira(transaction.amount_kobo)}
                      </span>
                    </Cell>
                    <Cell>
                      <CellLabel>Balance after</CellLabel>
                      <span className="accounts__amount">{formatNaira(transaction.balance_after_kobo)}</span>
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
            <Pager label="Transaction pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </section>
  );
}

/** Who sent a credit (the originator) or received a debit: name, bank, account number. */
function Counterparty({ transaction }: { transaction: Transaction }) {
  const party = transaction.counterparty;
  if (!party) return <span className="muted">—</span>;
  return (
    <>
      <span className="transactions-table__party">
        <UserText>{party.account_name}</UserText>
      </span>
      <span className="data-table__secondary">
        {party.bank_name ? <UserText>{party.bank_name}</UserText> : `Bank code ${party.bank_code}`}
        {' · '}
        <span className="accounts__number">{party.account_number}</span>
      </span>
    </>
  );
}
