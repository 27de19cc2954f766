import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Cell, Column, Row, TableBody, TableHeader } from 'react-aria-components';
import { DateTime } from '@/components/ui/date-time';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText, userText, visibleControls } from '@/components/ui/user-text';
import { formatNaira } from '@/lib/money';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { transactionsQuery } from '../api/accounts';

/** The account's credits, newest first, a page at a time. */
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
            <DataTable aria-label="Transactions">
              <TableHeader>
                <Column isRowHeader>Date</Column>
                <Column>Narration</Column>
                <Column>Reference</Column>
                <Column>Amount</Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => <p className="data-table__empty">No transactions yet.</p>}
              >
                {(transaction) => (
                  <Row id={transaction.id} textValue={visibleControls(transaction.reference)}>
                    <Cell>
                      <DateTime value={transaction.created_at} />
                    </Cell>
                    <Cell>
                      <CellLabel>Narration</CellLabel>
                      {userText(transaction.narration) ?? <span className="muted">None</span>}
                    </Cell>
                    <Cell>
                      <CellLabel>Reference</CellLabel>
                      <code className="accounts__reference">
                        <UserText>{transaction.reference}</UserText>
                      </code>
                    </Cell>
                    <Cell>
                      <CellLabel>Amount</CellLabel>
                      <span className="accounts__amount accounts__amount--credit">
                        +{formatNaira(transaction.amount_kobo)}
                      </span>
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
