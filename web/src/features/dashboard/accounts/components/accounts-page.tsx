import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectFormField } from '@/components/ui/select-form-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { Environment, VirtualAccount, VirtualAccountStatus } from '@/lib/api/partner-types';
import { formatNaira } from '@/lib/money';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { type AccountFilters, accountsQuery } from '../api/accounts';
import { ACCOUNT_STATUS_OPTIONS, AccountStatusBadge } from './account-status-badge';
import { CreateAccountDialog } from './create-account-dialog';
import './accounts.css';

const FILTER_NAMES = ['status', 'email', 'created_from', 'created_to'] as const;
const STATUS_FILTERS = [{ id: 'any', label: 'Any status' }, ...ACCOUNT_STATUS_OPTIONS];

function filtersFrom(params: URLSearchParams): AccountFilters {
  const filters: AccountFilters = {};
  const status = params.get('status');
  if (status === 'active' || status === 'inactive' || status === 'closed') filters.status = status;
  for (const name of ['email', 'created_from', 'created_to'] as const) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/** Virtual accounts of this environment: filters kept in the address, paging, and account creation. */
export function AccountsPage({ environment }: { environment: Environment }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const navigate = useNavigate();
  const filters = filtersFrom(searchParams);
  const filterKey = JSON.stringify(filters);
  const pages = useCursorPages(filterKey);
  const accounts = useQuery(accountsQuery(filters, pages.cursor));
  const [creating, setCreating] = useState(false);
  const filtered = Object.keys(filters).length > 0;

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of FILTER_NAMES) {
      const value = String(form.get(name) ?? '').trim();
      if (value && value !== 'any') next.set(name, value);
    }
    setSearchParams(next, { replace: true });
  };

  return (
    <div className="accounts">
      <title>Virtual accounts · Partner dashboard</title>
      <PageHeader
        title="Virtual accounts"
        description={`Dedicated NUBAN account numbers for your customers, in the ${environment === 'live' ? 'live' : 'sandbox'} environment. Money sent to one is credited to its customer.`}
        aside={<Button onPress={() => setCreating(true)}>Create account</Button>}
      />
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
        <TextField
          name="created_from"
          type="date"
          label="Created from (UTC)"
          defaultValue={filters.created_from ?? ''}
        />
        <TextField
          name="created_to"
          type="date"
          label="Created to (UTC)"
          defaultValue={filters.created_to ?? ''}
        />
        <div className="accounts__filter-actions">
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
            <p className="accounts__count" role="status">
              {describeCount(data.items.length, pages.page, Boolean(data.next_cursor), filtered)}
            </p>
            <AccountsTable items={data.items} filtered={filtered} />
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

function describeCount(count: number, page: number, more: boolean, filtered: boolean): string {
  if (count === 0) return page > 1 ? 'No more accounts.' : '';
  const accounts = count === 1 ? '1 account' : `${count} accounts`;
  const which = filtered ? ' matching the filters' : '';
  return more || page > 1 ? `${accounts}${which} on page ${page}` : `${accounts}${which}`;
}

function AccountsTable({ items, filtered }: { items: VirtualAccount[]; filtered: boolean }) {
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
            {filtered ? 'No account matches these filters.' : 'No accounts yet. Create one for a customer.'}
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
