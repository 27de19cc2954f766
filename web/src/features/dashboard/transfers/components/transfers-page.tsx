import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DateField } from '@/components/ui/date-field';
import { DateTime } from '@/components/ui/date-time';
import { ExportButton } from '@/components/ui/export-button';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectFormField } from '@/components/ui/select-form-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { Environment, Transfer, TransferStatus } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { type TransferFilters, transfersQuery, useExportTransfers } from '../api/transfers';
import { TRANSFER_STATUS_OPTIONS, TransferStatusBadge } from './transfer-status';
import './transfers.css';

const TEXT_FILTERS = ['source_account_number', 'reference', 'created_from', 'created_to'] as const;
const STATUS_FILTERS = [{ id: 'any', label: 'Any status' }, ...TRANSFER_STATUS_OPTIONS];
const STATUSES = new Set<string>(TRANSFER_STATUS_OPTIONS.map((option) => option.id));

function filtersFrom(params: URLSearchParams): TransferFilters {
  const filters: TransferFilters = {};
  const status = params.get('status');
  if (status && STATUSES.has(status)) filters.status = status as TransferStatus;
  for (const name of TEXT_FILTERS) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/**
 * Transfers out of this environment, newest first: filters kept in the address, paging, and a CSV
 * export of every transfer the filters select.
 */
export function TransfersPage({ environment }: { environment: Environment }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersFrom(searchParams);
  const filterKey = JSON.stringify(filters);
  const pages = useCursorPages(filterKey);
  const transfers = useQuery(transfersQuery(filters, pages.cursor));
  const filtered = Object.keys(filters).length > 0;
  const exporting = useExportTransfers();
  const exportCsv = () =>
    exporting.mutate({
      filters,
      fileName: `transfers-${environment}-${new Date().toISOString().slice(0, 10)}.csv`,
    });

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of ['status', ...TEXT_FILTERS]) {
      const value = String(form.get(name) ?? '').trim();
      if (value && value !== 'any') next.set(name, value);
    }
    setSearchParams(next, { replace: true });
  };

  return (
    <div className="transfers">
      <title>Transfers · Partner dashboard</title>
      <PageHeader
        title="Transfers"
        description={`Money sent from your virtual accounts in the ${environment === 'live' ? 'live' : 'sandbox'} environment. Send money from an account's page.`}
      />
      <Form
        className="transfers__filters"
        onSubmit={applyFilters}
        key={filterKey}
        aria-label="Filter transfers"
      >
        <SelectFormField
          name="status"
          label="Status"
          options={STATUS_FILTERS}
          defaultValue={filters.status ?? 'any'}
        />
        <TextField
          name="source_account_number"
          label="From account"
          inputMode="numeric"
          maxLength={10}
          defaultValue={filters.source_account_number ?? ''}
        />
        <TextField name="reference" label="Reference" defaultValue={filters.reference ?? ''} />
        <DateField name="created_from" label="Created from (UTC)" defaultValue={filters.created_from ?? ''} />
        <DateField name="created_to" label="Created to (UTC)" defaultValue={filters.created_to ?? ''} />
        <div className="transfers__filter-actions">
          <Button type="submit" variant="secondary">
            Apply filters
          </Button>
          {filtered ? (
            <Button variant="quiet" onPress={() => setSearchParams({}, { replace: true })}>
              Clear
            </Button>
          ) : null}
        </div>
      </Form>
      <QueryView
        query={transfers}
        loading="Loading transfers…"
        renderError={(error) => (
          <Alert tone="error" title="The transfers could not be loaded.">
            <p>
              {error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED'
                ? Object.values(error.errors).flat().join(' ') || errorMessage(error)
                : errorMessage(error)}
            </p>
          </Alert>
        )}
      >
        {(data) => (
          <>
            <div className="transfers__summary">
              <p className="transfers__count" role="status">
                {describeCount(data.items.length, pages.page, Boolean(data.next_cursor), filtered)}
              </p>
              <ExportButton
                what="transfers"
                onExport={exportCsv}
                isPending={exporting.isPending}
                saved={exporting.data}
                error={exporting.error}
              />
            </div>
            <TransfersTable items={data.items} filtered={filtered} />
            <Pager label="Transfer pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </div>
  );
}

function describeCount(count: number, page: number, more: boolean, filtered: boolean): string {
  if (count === 0) return page > 1 ? 'No more transfers.' : '';
  const transfers = count === 1 ? '1 transfer' : `${count} transfers`;
  const which = filtered ? ' matching the filters' : '';
  return more || page > 1 ? `${transfers}${which} on page ${page}` : `${transfers}${which}`;
}

function TransfersTable({ items, filtered }: { items: Transfer[]; filtered: boolean }) {
  return (
    <DataTable aria-label="Transfers" className="transfers-table">
      <TableHeader>
        <Column isRowHeader>Beneficiary</Column>
        <Column>From</Column>
        <Column>Reference</Column>
        <Column>Amount</Column>
        <Column>Status</Column>
        <Column>Created</Column>
      </TableHeader>
      <TableBody
        items={items}
        renderEmptyState={() => (
          <p className="data-table__empty">
            {filtered
              ? 'No transfer matches these filters.'
              : "No transfers yet. Send money from a virtual account's page."}
          </p>
        )}
      >
        {(transfer) => (
          <Row
            id={transfer.id}
            href={`/transfers/${transfer.id}`}
            textValue={visibleControls(
              `${transfer.beneficiary.account_name} ${formatNaira(transfer.amount_kobo)} ${transfer.status}`,
            )}
          >
            <Cell>
              <span className="data-table__primary">
                <UserText>{transfer.beneficiary.account_name}</UserText>
              </span>
              <span className="data-table__secondary">
                <UserText>{transfer.beneficiary.bank_name}</UserText> ·{' '}
                <span className="transfers__number">{transfer.beneficiary.account_number}</span>
              </span>
            </Cell>
            <Cell>
              <CellLabel>From</CellLabel>
              <span className="transfers__number">{transfer.source_account_number}</span>
            </Cell>
            <Cell>
              <CellLabel>Reference</CellLabel>
              <code className="transfers__reference">
                <UserText>{transfer.reference}</UserText>
              </code>
            </Cell>
            <Cell>
              <CellLabel>Amount</CellLabel>
              <span className="transfers__amount">{formatNaira(transfer.amount_kobo)}</span>
              <span className="data-table__secondary">Fee {formatNaira(transfer.fee_kobo)}</span>
            </Cell>
            <Cell>
              <CellLabel>Status</CellLabel>
              <TransferStatusBadge status={transfer.status} />
            </Cell>
            <Cell>
              <CellLabel>Created</CellLabel>
              <DateTime value={transfer.created_at} variant="stacked" />
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}
