import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DateField } from '@/components/ui/date-field';
import { DateTime } from '@/components/ui/date-time';
import { ExportButton } from '@/components/ui/export-button';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectField } from '@/components/ui/select-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { ActorType, AuditEvent } from '@/lib/api/operator-types';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { type AuditFilters, auditEventsQuery, useExportAuditEvents } from '../api/audit-events';
import { actionLabel, actorDetail, actorLabel, eventDetails, targetLabel } from './describe-event';
import './audit.css';

const ACTOR_TYPES: Array<{ id: ActorType | 'any'; label: string }> = [
  { id: 'any', label: 'Anyone' },
  { id: 'operator', label: 'Operators' },
  { id: 'api_key', label: 'Admin API key' },
  { id: 'user', label: "Partners' users" },
  { id: 'partner', label: 'Partners (registration, API keys)' },
  { id: 'system', label: 'System' },
  { id: 'anonymous', label: 'Not signed in' },
];

const isActorType = (value: string | null): value is ActorType =>
  ACTOR_TYPES.some((type) => type.id !== 'any' && type.id === value);

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The text filters the form sets, by their names in the address and in the API. */
const TEXT_FILTERS = ['company', 'operator', 'action'] as const;

/**
 * The filters in the address (?company=&operator=&created_from=&created_to=&action=&actor_type=, and
 * company_id= or actor_id= from a link elsewhere), as the API takes them; anything malformed is left out.
 */
function filtersFrom(params: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  for (const name of TEXT_FILTERS) {
    const value = params.get(name)?.trim().slice(0, 100);
    if (value) filters[name] = value;
  }
  const from = params.get('created_from');
  if (from && ISO_DAY.test(from)) filters.created_from = from;
  const to = params.get('created_to');
  if (to && ISO_DAY.test(to)) filters.created_to = to;
  const actorType = params.get('actor_type');
  if (isActorType(actorType)) filters.actor_type = actorType;
  const company = params.get('company_id');
  if (company && /^[1-9][0-9]{0,9}$/.test(company)) filters.company_id = Number(company);
  const actorId = params.get('actor_id')?.trim();
  if (actorId) filters.actor_id = actorId.slice(0, 100);
  return filters;
}

function paramsOf(filters: AuditFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters))
    if (value !== undefined) params.set(name, String(value));
  return params;
}

/** A 422's field errors as one sentence, else the API's message. */
const problemOf = (error: unknown) =>
  error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED'
    ? Object.entries(error.errors)
        .map(([field, messages]) => `${field} ${messages.join(', ')}.`)
        .join(' ') || errorMessage(error)
    : errorMessage(error);

/**
 * Every recorded change, sign-in and decision, newest first, filtered by partner, operator, days
 * and action, the filters kept in the address; "Export CSV" saves every matching event.
 */
export function AuditLogPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersFrom(searchParams);
  const filterKey = JSON.stringify(filters);
  const pages = useCursorPages(filterKey);
  const events = useQuery(auditEventsQuery(filters, pages.cursor));
  const exporting = useExportAuditEvents();
  const filtered = Object.keys(filters).length > 0;
  const apply = (next: AuditFilters) => {
    exporting.reset();
    setSearchParams(paramsOf(next));
  };
  const without = (name: keyof AuditFilters) => {
    const { [name]: _, ...rest } = filters;
    apply(rest);
  };
  const pinnedCompany =
    filters.company_id === undefined
      ? null
      : (events.data?.items.find((event) => event.company_id === filters.company_id)?.company_name ??
        `Company ${filters.company_id}`);

  return (
    <div className="audit-log">
      <title>Audit log · Operator console</title>
      <PageHeader
        title="Audit log"
        description="Every state change, sign-in and decision, newest first: who acted, what changed, when, and from which request."
      />
      <AuditFilterForm
        key={filterKey}
        filters={filters}
        onApply={(next) =>
          apply({
            ...next,
            ...(filters.company_id === undefined ? {} : { company_id: filters.company_id }),
            ...(filters.actor_id === undefined ? {} : { actor_id: filters.actor_id }),
          })
        }
        onClear={filtered ? () => apply({}) : undefined}
      />
      {pinnedCompany !== null || filters.actor_id !== undefined ? (
        <ul className="audit-log__pinned" aria-label="Also filtered by">
          {pinnedCompany !== null ? (
            <li>
              Partner: <UserText>{pinnedCompany}</UserText>{' '}
              <Button variant="quiet" size="small" onPress={() => without('company_id')}>
                Show every partner
              </Button>
            </li>
          ) : null}
          {filters.actor_id !== undefined ? (
            <li>
              Actor ID: <code>{filters.actor_id}</code>{' '}
              <Button variant="quiet" size="small" onPress={() => without('actor_id')}>
                Show every actor
              </Button>
            </li>
          ) : null}
        </ul>
      ) : null}
      <div className="audit-log__export">
        <p className="muted">
          {filtered ? 'Every event matching the filters, all pages.' : 'Every event, all pages.'} Days are in
          UTC.
        </p>
        <ExportButton
          what="audit log"
          onExport={() => exporting.mutate(filters)}
          isPending={exporting.isPending}
          saved={exporting.data}
          error={exporting.error}
        />
      </div>
      <QueryView
        query={events}
        loading="Loading the audit log…"
        renderError={(error) => (
          <Alert tone="error" title="The audit log could not be loaded.">
            <p>{problemOf(error)}</p>
          </Alert>
        )}
      >
        {(data) => (
          <>
            <div className="audit-log__results" aria-busy={events.isPlaceholderData}>
              <AuditTable events={data.items} filtered={filtered} />
            </div>
            <Pager label="Audit log pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </div>
  );
}

function AuditFilterForm({
  filters,
  onApply,
  onClear,
}: {
  filters: AuditFilters;
  onApply: (filters: AuditFilters) => void;
  onClear: (() => void) | undefined;
}) {
  const [actorType, setActorType] = useState<string>(filters.actor_type ?? 'any');
  const [from, setFrom] = useState(filters.created_from ?? '');
  const [to, setTo] = useState(filters.created_to ?? '');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const params = new URLSearchParams();
    for (const name of TEXT_FILTERS) {
      const value = String(form.get(name) ?? '').trim();
      if (value) params.set(name, value);
    }
    if (from) params.set('created_from', from);
    if (to) params.set('created_to', to);
    if (actorType !== 'any') params.set('actor_type', actorType);
    onApply(filtersFrom(params));
  };
  return (
    <Form className="audit-filters" onSubmit={submit} aria-label="Filter the audit log">
      <TextField
        name="company"
        label="Company"
        maxLength={100}
        description="Business name or e-mail"
        defaultValue={filters.company ?? ''}
      />
      <TextField
        name="operator"
        label="Operator"
        maxLength={100}
        description="Name or e-mail of the operator who acted"
        defaultValue={filters.operator ?? ''}
      />
      <TextField
        name="action"
        label="Action"
        maxLength={100}
        placeholder="e.g. document.approved"
        defaultValue={filters.action ?? ''}
      />
      <DateField name="created_from" label="From (UTC)" value={from} onChange={setFrom} />
      <DateField
        name="created_to"
        label="To (UTC)"
        description="Includes the whole day"
        value={to}
        onChange={setTo}
        validate={(value) => (from && value < from ? 'The last day cannot be before the first.' : null)}
      />
      <SelectField label="Actor" options={ACTOR_TYPES} value={actorType} onChange={setActorType} />
      <div className="audit-filters__actions">
        <Button type="submit">Apply filters</Button>
        {onClear ? (
          <Button variant="quiet" onPress={onClear}>
            Clear
          </Button>
        ) : null}
      </div>
    </Form>
  );
}

function AuditTable({ events, filtered }: { events: AuditEvent[]; filtered: boolean }) {
  return (
    <DataTable aria-label="Audit events" className="audit-table">
      <TableHeader>
        <Column isRowHeader className="audit-table__when">
          When
        </Column>
        <Column className="audit-table__event">Action</Column>
        <Column className="audit-table__actor">Actor</Column>
        <Column className="audit-table__partner">Partner</Column>
        <Column>Details</Column>
        <Column className="audit-table__request-column">Request</Column>
      </TableHeader>
      <TableBody
        items={events}
        renderEmptyState={() => (
          <p className="data-table__empty">
            {filtered
              ? 'No event matches these filters. Widen the days or clear a filter.'
              : 'Nothing has been recorded yet.'}
          </p>
        )}
      >
        {(event) => (
          <Row id={event.id} textValue={`${actionLabel(event.action)} ${event.created_at}`}>
            <Cell>
              <DateTime value={event.created_at} variant="stacked" />
            </Cell>
            <Cell>
              <CellLabel>Action</CellLabel>
              <span className="audit-table__action">{actionLabel(event.action)}</span>
              <code className="audit-table__code">{event.action}</code>
            </Cell>
            <Cell>
              <CellLabel>Actor</CellLabel>
              <span className="audit-table__actor-name">
                <UserText>{actorLabel(event.actor)}</UserText>
              </span>
              <ActorDetail actor={event.actor} />
            </Cell>
            <Cell>
              <CellLabel>Partner</CellLabel>
              {event.company_id === null ? (
                <span className="muted">—</span>
              ) : (
                <Link className="audit-table__partner-link" href={`/partners/${event.company_id}`}>
                  {event.company_name === null ? (
                    `Company ${event.company_id}`
                  ) : (
                    <UserText>{event.company_name}</UserText>
                  )}
                </Link>
              )}
            </Cell>
            <Cell>
              <CellLabel>Details</CellLabel>
              {eventDetails(event).map((detail) => (
                <span key={detail.key} className="audit-table__detail">
                  {detail.content}
                </span>
              ))}
              {targetLabel(event) ? <span className="audit-table__target">{targetLabel(event)}</span> : null}
            </Cell>
            <Cell>
              <CellLabel>Request</CellLabel>
              <span className="audit-table__request">{event.ip ?? '—'}</span>
              {event.request_id ? <code className="audit-table__code">{event.request_id}</code> : null}
            </Cell>
          </Row>
        )}
      </TableBody>
    </DataTable>
  );
}

function ActorDetail({ actor }: { actor: AuditEvent['actor'] }) {
  const detail = actorDetail(actor);
  return detail === null ? null : (
    <span className="data-table__secondary audit-table__actor-detail">
      <UserText>{detail}</UserText>
    </span>
  );
}
