import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { useNavigate, useSearchParams } from 'react-router';
import { RoleNote } from '@/components/role-note';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DateField } from '@/components/ui/date-field';
import { DateTime } from '@/components/ui/date-time';
import { ExportButton } from '@/components/ui/export-button';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectField } from '@/components/ui/select-field';
import { SelectFormField } from '@/components/ui/select-form-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { Environment, VirtualAccount, VirtualAccountStatus } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { useAccess } from '@/lib/partner-roles';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { useDebouncedParam } from '@/lib/use-debounced-param';
import {
  type AccountFilters,
  accountsQuery,
  PAGE_SIZES,
  type PageSize,
  useExportAccounts,
} from '../api/accounts';
import { ACCOUNT_STATUS_OPTIONS, AccountStatusBadge } from './account-status-badge';
import { CreateAccountDialog } from './create-account-dialog';
import './accounts.css';

const FILTER_NAMES = ['status', 'email', 'created_from', 'created_to'] as const;
/** Kept when the filters are applied or cleared: the search and how the list is shown. */
const VIEW_NAMES = ['q', 'order', 'limit'] as const;
const STATUS_FILTERS = [{ id: 'any', label: 'Any status' }, ...ACCOUNT_STATUS_OPTIONS];
const ORDERS = [
  { id: 'desc', label: 'Newest first' },
  { id: 'asc', label: 'Oldest first' },
];
const SIZES = PAGE_SIZES.map((size) => ({ id: String(size), label: `${size} rows` }));
const counts = new Intl.NumberFormat('en-NG');

function filtersFrom(params: URLSearchParams): AccountFilters {
  const filters: AccountFilters = {};
  const status = params.get('status');
  if (status === 'active' || status === 'inactive' || status === 'closed') filters.status = status;
  for (const name of ['email', 'created_from', 'created_to', 'q'] as const) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  if (params.get('order') === 'asc') filters.order = 'asc';
  return filters;
}

function pageSizeFrom(params: URLSearchParams): PageSize {
  const size = Number(params.get('limit'));
  return PAGE_SIZES.find((candidate) => candidate === size) ?? PAGE_SIZES[0];
}

/**
 * Virtual accounts of this environment: search, filters, order and page size kept in the address,
 * the whole list's count, paging, a CSV export of everything the list selects, and account creation.
 */
export function AccountsPage({ environment }: { environment: Environment }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const navigate = useNavigate();
  const filters = filtersFrom(searchParams);
  const limit = pageSizeFrom(searchParams);
  const filterKey = JSON.stringify(filters);
  const pages = useCursorPages(`${filterKey}:${limit}`);
  const accounts = useQuery(accountsQuery(filters, limit, pages.cursor));
  const exporting = useExportAccounts();
  const [search, setSearch] = useDebouncedParam('q');
  const [creating, setCreating] = useState(false);
  const canCreate = useAccess('money').allowed;
  const filtered = FILTER_NAMES.some((name) => filters[name] !== undefined);

  /** Changes one parameter of the address, leaving the others; the default value is left out. */
  const setParam = (name: string, value: string, fallback: string) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        if (value === fallback) next.delete(name);
        else next.set(name, value);
        return next;
      },
      { replace: true },
    );

  /** The address with the form's `chosen` filters, and the search, order and page size as they are. */
  const withFilters = (chosen: Iterable<[string, string]>) => {
    const next = new URLSearchParams();
    for (const [name, value] of chosen) next.set(name, value);
    for (const name of VIEW_NAMES) {
      const value = searchParams.get(name);
      if (value) next.set(name, value);
    }
    setSearchParams(next, { replace: true });
  };

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const chosen: Array<[string, string]> = [];
    for (const name of FILTER_NAMES) {
      const value = String(form.get(name) ?? '').trim();
      if (value && value !== 'any') chosen.push([name, value]);
    }
    withFilters(chosen);
  };

  const exportCsv = () =>
    exporting.mutate({
      filters,
      fileName: `virtual-accounts-${environment}-${new Date().toISOString().slice(0, 10)}.csv`,
    });

  return (
    <div className="accounts">
      <title>Virtual accounts · Partner dashboard</title>
      <PageHeader
        title="Virtual accounts"
        description={`Dedicated NUBAN account numbers for your customers, in the ${environment === 'live' ? 'live' : 'sandbox'} environment. Money sent to one is credited to its customer.`}
        aside={canCreate ? <Button onPress={() => setCreating(true)}>Create account</Button> : undefined}
      />
      <RoleNote access="money" className="accounts__role-note" />
      <search className="accounts__toolbar" aria-label="Search accounts">
        <TextField
          label="Search"
          type="search"
          name="q"
          value={search}
          onChange={setSearch}
          description="The start of an account number, e-mail address, full name or last name"
        />
        <SelectField
          label="Order"
          name="order"
          options={ORDERS}
          value={filters.order ?? 'desc'}
          onChange={(value) => setParam('order', value, 'desc')}
        />
        <SelectField
          label="Rows per page"
          name="limit"
          options={SIZES}
          value={String(limit)}
          onChange={(value) => setParam('limit', value, String(PAGE_SIZES[0]))}
        />
      </search>
      <Form
        className="accounts__filters"
        onSubmit={applyFilters}
        key={filterKey}
        aria-label="Filter accounts"
      >
        <SelectFormField
          name="status"
          label="Status"
          options={STATUS_FILTERS}
          defaultValue={filters.status ?? 'any'}
        />
        <TextField name="email" type="email" label="Customer e-mail" defaultValue={filters.email ?? ''} />
        <DateField name="created_from" label="Created from (UTC)" defaultValue={filters.created_from ?? ''} />
        <DateField name="created_to" label="Created to (UTC)" defaultValue={filters.created_to ?? ''} />
        <div className="accounts__filter-actions">
          <Button type="submit" variant="secondary">
            Apply filters
          </Button>
          {filtered ? (
            <Button variant="quiet" onPress={() => withFilters([])}>
              Clear
            </Button>
          ) : null}
        </div>
      </Form>
      <QueryView
        query={accounts}
        loading="Loading accounts…"
        renderError={(error) => (
          <Alert tone="error" title="The accounts could not be loaded.">
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
            <div className="accounts__summary">
              <p className="accounts__count" role="status">
                {describeCount(data, pages.page, limit, { search: filters.q, filtered })}
              </p>
              <ExportButton
                what="accounts"
                onExport={exportCsv}
                isPending={exporting.isPending}
                saved={exporting.data}
                error={exporting.error}
              />
            </div>
            <div className="accounts__results" aria-busy={accounts.isPlaceholderData}>
              <AccountsTable items={data.items} search={filters.q} filtered={filtered} />
            </div>
            <Pager label="Account pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
      <CreateAccountDialog
        isOpen={creating}
        onOpenChange={setCreating}
        environment={environment}
        onCreated={(account) => {
          setCreating(false);
          navigate(`/accounts/${account.account_number}`, { state: { created: true } });
        }}
      />
    </div>
  );
}

/**
 * "24 accounts", "1 account matching the filters", "Showing 21–40 of 1,234 accounts matching
 * “oko”", or "… of 10,000+ accounts" when the server stopped counting.
 */
function describeCount(
  data: { items: unknown[]; next_cursor: string | null; total: number; total_capped: boolean },
  page: number,
  limit: number,
  { search, filtered }: { search: string | undefined; filtered: boolean },
): string {
  if (data.items.length === 0) return page > 1 ? 'No more accounts.' : '';
  const noun = data.total === 1 && !data.total_capped ? 'account' : 'accounts';
  const all = `${counts.format(data.total)}${data.total_capped ? '+' : ''} ${noun}`;
  const which = filtered ? ' matching the filters' : search ? ` matching “${visibleControls(search)}”` : '';
  if (page === 1 && !data.next_cursor) return `${all}${which}`;
  const first = (page - 1) * limit + 1;
  const last = first + data.items.length - 1;
  return `Showing ${counts.format(first)}–${counts.format(last)} of ${all}${which}`;
}

function AccountsTable({
  items,
  search,
  filtered,
}: {
  items: VirtualAccount[];
  search: string | undefined;
  filtered: boolean;
}) {
  return (
    <DataTable aria-label="Virtual accounts">
      <TableHeader>
        <Column isRowHeader>Account</Column>
        <Column>Customer</Column>
        <Column>Status</Column>
        <Column>Balance</Column>
        <Column>Created</Column>
      </TableHeader>
      <TableBody
        items={items}
        renderEmptyState={() => (
          <p className="data-table__empty">
            {search
              ? `No account${filtered ? ' matching these filters' : ''} starts with “${visibleControls(search)}”. The search looks at the start of the account number, the customer's e-mail address, full name and last name.`
              : filtered
                ? 'No account matches these filters.'
                : 'No accounts yet. Create one for a customer.'}
          </p>
        )}
      >
        {(account) => (
          <Row
            id={account.account_number}
            href={`/accounts/${account.account_number}`}
            textValue={visibleControls(
              `${account.account_number} ${account.customer.first_name} ${account.customer.last_name}`,
            )}
          >
            <Cell>
              <span className="data-table__primary accounts__number">{account.account_number}</span>
              <span className="data-table__secondary">{account.bank_name}</span>
            </Cell>
            <Cell>
              <CellLabel>Customer</CellLabel>
              <UserText>{`${account.customer.first_name} ${account.customer.last_name}`}</UserText>
              <span className="data-table__secondary">
                <UserText>{account.customer.email}</UserText>
              </span>
            </Cell>
            <Cell>
              <CellLabel>Status</CellLabel>
              <AccountStatusBadge status={account.status as VirtualAccountStatus} />
            </Cell>
            <Cell>
              <CellLabel>Balance</CellLabel>
              <span className="accounts__amount">{formatNaira(account.balance_kobo)}</span>
            </Cell>
            <Cell>
              <CellLabel>Created</CellLabel>
              <DateTime value={account.created_at} />
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}
