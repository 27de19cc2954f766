import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button as AriaButton, Cell, Column, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryError, QueryView } from '@/components/ui/query-view';
import { SectionHeader } from '@/components/ui/section-header';
import { SelectField, type SelectOption } from '@/components/ui/select-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText } from '@/components/ui/user-text';
import type { AdminTransfer, TransferStatus } from '@/lib/api/operator-types';
import { formatDateTime, formatTime } from '@/lib/format';
import { formatNaira } from '@/lib/money';
import { useCursorPages } from '@/lib/use-cursor-pages';
import {
  ATTENTION_LIMIT,
  attentionQuery,
  partnerChoicesQuery,
  type TransferFilters,
  transfersQuery,
} from '../api/transfers';
import { TransferDialog } from './transfer-dialog';
import { ENVIRONMENTS, isOpen, STATUSES } from './transfer-labels';
import './transfers.css';

const ANY = 'any';

const STATUS_OPTIONS: SelectOption[] = [
  { id: ANY, label: 'Any status' },
  ...(Object.keys(STATUSES) as TransferStatus[]).map((status) => ({
    id: status,
    label: STATUSES[status].label,
  })),
];

const ENVIRONMENT_OPTIONS: SelectOption[] = [
  { id: ANY, label: 'Both' },
  { id: 'live', label: ENVIRONMENTS.live },
  { id: 'sandbox', label: ENVIRONMENTS.sandbox },
];

/** The filters in the address (?status=&environment=&company_id=), as the API takes them. */
function filtersFrom(params: URLSearchParams): TransferFilters {
  const filters: TransferFilters = {};
  const status = params.get('status');
  if (status && status in STATUSES) filters.status = status as TransferStatus;
  const environment = params.get('environment');
  if (environment === 'live' || environment === 'sandbox') filters.environment = environment;
  const company = params.get('company_id');
  if (company && /^[0-9]{1,10}$/.test(company)) filters.company_id = Number(company);
  return filters;
}

/**
 * Every partner's transfers out: first what needs an operator (the bank owes an answer), then all
 * of them, newest first, filtered by status, environment and partner (kept in the address, so a
 * partner's page links here with its company ID).
 */
export function TransfersPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersFrom(searchParams);
  const filterKey = JSON.stringify(filters);
  const pages = useCursorPages(filterKey);
  const transfers = useQuery(transfersQuery(filters, pages.cursor));
  const [selected, setSelected] = useState<AdminTransfer | null>(null);

  const setFilter = (name: keyof TransferFilters, value: string) => {
    const next = new URLSearchParams(searchParams);
    if (value === ANY) next.delete(name);
    else next.set(name, value);
    setSearchParams(next);
  };
  const { status, ...scope } = filters;

  return (
    <div className="transfers">
      <title>Transfers · Operator console</title>
      <PageHeader
        title="Transfers"
        description="Money the partners sent out to other banks and to accounts here: what waits for the bank's answer first, then every transfer, newest first."
      />
      <FilterBar filters={filters} onChange={setFilter} onClear={() => setSearchParams({})} />
      <section className="transfers__section" aria-labelledby="attention-title">
        <SectionHeader
          id="attention-title"
          title="Needs attention"
          description="Stuck transfers first (still pending or processing 10 minutes after they were accepted: the bank owes an answer), then every other one handed to the bank and not answered yet. The environment and partner filters apply here too."
        />
        <AttentionList filters={scope} onOpen={setSelected} />
      </section>
      <section className="transfers__section" aria-labelledby="all-transfers-title">
        <SectionHeader
          id="all-transfers-title"
          title="All transfers"
          description={status ? `${STATUSES[status].label} ones only, newest first.` : 'Newest first.'}
        />
        <QueryView
          query={transfers}
          loading="Loading the transfers…"
          errorTitle="The transfers could not be loaded."
        >
          {(data) => (
            <>
              <div aria-busy={transfers.isPlaceholderData}>
                <TransfersTable
                  label="All transfers"
                  items={data.items}
                  empty={
                    Object.keys(filters).length > 0
                      ? 'No transfer matches these filters.'
                      : 'No partner has sent a transfer yet.'
                  }
                  onOpen={setSelected}
                />
              </div>
              <Pager label="Transfer pages" pages={pages} nextCursor={data.next_cursor} />
            </>
          )}
        </QueryView>
      </section>
      <TransferDialog transfer={selected} onClose={() => setSelected(null)} />
    </div>
  );
}

function FilterBar({
  filters,
  onChange,
  onClear,
}: {
  filters: TransferFilters;
  onChange: (name: keyof TransferFilters, value: string) => void;
  onClear: () => void;
}) {
  const partners = useQuery(partnerChoicesQuery());
  const company = filters.company_id === undefined ? ANY : String(filters.company_id);
  const partnerOptions: SelectOption[] = [
    { id: ANY, label: 'Every partner' },
    ...(partners.data ?? []).map((partner) => ({ id: String(partner.companyId), label: partner.name })),
  ];
  // A partner's link may name one beyond the first hundred: it is still a choice.
  if (company !== ANY && !partnerOptions.some((option) => option.id === company)) {
    partnerOptions.push({ id: company, label: `Company ${company}` });
  }
  return (
    <search className="transfers-filters" aria-label="Filter the transfers">
      <SelectField
        label="Status"
        options={STATUS_OPTIONS}
        value={filters.status ?? ANY}
        onChange={(value) => onChange('status', value)}
      />
      <SelectField
        label="Environment"
        options={ENVIRONMENT_OPTIONS}
        value={filters.environment ?? ANY}
        onChange={(value) => onChange('environment', value)}
      />
      <SelectField
        label="Partner"
        options={partnerOptions}
        value={company}
        onChange={(value) => onChange('company_id', value)}
      />
      <div className="transfers-filters__actions">
        {Object.keys(filters).length > 0 ? (
          <Button variant="quiet" onPress={onClear}>
            Clear filters
          </Button>
        ) : null}
      </div>
      {partners.isError ? (
        <div className="transfers-filters__error">
          <QueryError error={partners.error} title="The partners could not be listed." />
        </div>
      ) : null}
    </search>
  );
}

/** Stuck ones, then the other processing ones (a stuck one is often processing too: shown once). */
function AttentionList({
  filters,
  onOpen,
}: {
  filters: Omit<TransferFilters, 'status'>;
  onOpen: (transfer: AdminTransfer) => void;
}) {
  const stuck = useQuery(attentionQuery('stuck', filters));
  const processing = useQuery(attentionQuery('processing', filters));
  const failed = stuck.isError ? stuck : processing.isError ? processing : null;
  if (failed?.error) {
    return (
      <QueryError
        error={failed.error}
        title="What needs attention could not be loaded."
        onRetry={() => {
          void stuck.refetch();
          void processing.refetch();
        }}
      />
    );
  }
  return (
    <QueryView query={stuck} loading="Loading what needs attention…">
      {(stuckPage) => (
        <QueryView query={processing} loading="Loading what needs attention…">
          {(processingPage) => {
            const stuckIds = new Set(stuckPage.items.map((item) => item.id));
            const items = [
              ...stuckPage.items,
              ...processingPage.items.filter((item) => !stuckIds.has(item.id)),
            ];
            const more = stuckPage.next_cursor !== null || processingPage.next_cursor !== null;
            return (
              <>
                <TransfersTable
                  label="Transfers needing attention"
                  items={items}
                  empty="Nothing needs attention: the bank has answered for every transfer handed to it."
                  onOpen={onOpen}
                />
                {more ? (
                  <p className="transfers__note">
                    {`Only the first ${ATTENTION_LIMIT} of each kind are shown: filter the list below by status, environment or partner for the rest.`}
                  </p>
                ) : null}
              </>
            );
          }}
        </QueryView>
      )}
    </QueryView>
  );
}

function TransfersTable({
  label,
  items,
  empty,
  onOpen,
}: {
  label: string;
  items: AdminTransfer[];
  empty: string;
  onOpen: (transfer: AdminTransfer) => void;
}) {
  return (
    <DataTable
      aria-label={label}
      className="transfers-table"
      onRowAction={(key) => {
        const transfer = items.find((item) => item.id === key);
        if (transfer) onOpen(transfer);
      }}
    >
      <TableHeader>
        <Column className="transfers-table__when">Created</Column>
        <Column>Business</Column>
        <Column isRowHeader>Reference</Column>
        <Column>Beneficiary</Column>
        <Column className="transfers-table__money">Amount and fee</Column>
        <Column>Status and response</Column>
        <Column>Status queries</Column>
      </TableHeader>
      <TableBody items={items} renderEmptyState={() => <p className="data-table__empty">{empty}</p>}>
        {(transfer) => (
          <Row id={transfer.id} textValue={transfer.reference}>
            <Cell>
              <DateTime value={transfer.created_at} variant="stacked" />
            </Cell>
            <Cell>
              <CellLabel>Business</CellLabel>
              <Link href={`/partners/${transfer.company_id}`}>
                <UserText>{transfer.business_name}</UserText>
              </Link>
              <span className="data-table__secondary">{ENVIRONMENTS[transfer.environment]}</span>
            </Cell>
            <Cell>
              <CellLabel>Reference</CellLabel>
              <AriaButton className="transfers-table__open" onPress={() => onOpen(transfer)}>
                <UserText>{transfer.reference}</UserText>
              </AriaButton>
            </Cell>
            <Cell>
              <CellLabel>Beneficiary</CellLabel>
              <span className="transfers-table__party">
                <UserText>{transfer.beneficiary.account_name}</UserText>
              </span>
              <span className="data-table__secondary">
                <UserText>{transfer.beneficiary.bank_name}</UserText>
                {' · '}
                <span className="transfers__number">{transfer.beneficiary.account_number}</span>
              </span>
            </Cell>
            <Cell>
              <CellLabel>Amount and fee</CellLabel>
              <span className="transfers__amount">{formatNaira(transfer.amount_kobo)}</span>
              <span className="data-table__secondary transfers__fee">
                Fee {formatNaira(transfer.fee_kobo)}
              </span>
            </Cell>
            <Cell>
              <CellLabel>Status and response</CellLabel>
              <span className="transfers-table__badges">
                <Badge tone={STATUSES[transfer.status].tone}>{STATUSES[transfer.status].label}</Badge>
                {transfer.stuck ? <Badge tone="danger">Stuck</Badge> : null}
              </span>
              <span className="data-table__secondary">
                {transfer.response_code ? (
                  <>
                    Response <code className="transfers__code">{transfer.response_code}</code>
                  </>
                ) : (
                  'No response code'
                )}
              </span>
            </Cell>
            <Cell>
              <CellLabel>Status queries</CellLabel>
              <QueryProgress transfer={transfer} />
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}

/** The time alone when it is today, else the date too. */
const nextQueryTime = (iso: string) =>
  new Date(iso).toDateString() === new Date().toDateString() ? `at ${formatTime(iso)}` : formatDateTime(iso);

/** For a transfer still open: how often the bank was asked, and when it is asked next. */
function QueryProgress({ transfer }: { transfer: AdminTransfer }) {
  if (!isOpen(transfer.status)) return <span className="muted">—</span>;
  return (
    <span className="transfers-table__queries">
      {transfer.query_attempts === 1 ? '1 query' : `${transfer.query_attempts} queries`}
      <span className="data-table__secondary">
        {transfer.next_query_at ? `Next ${nextQueryTime(transfer.next_query_at)}` : 'No query scheduled'}
      </span>
    </span>
  );
}
