import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { PageHeader } from '@/components/ui/page-header';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SelectField } from '@/components/ui/select-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText } from '@/components/ui/user-text';
import type { ActorType, AuditEvent } from '@/lib/api/operator-types';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { type AuditFilters, auditEventsQuery } from '../api/audit-events';
import { actionLabel, actorLabel, eventDetails, targetLabel } from './describe-event';
import './audit.css';

const ACTOR_TYPES: Array<{ id: ActorType | 'any'; label: string }> = [
  { id: 'any', label: 'Anyone' },
  { id: 'operator', label: 'Operators' },
  { id: 'api_key', label: 'Admin API key' },
  { id: 'partner', label: 'Partners' },
  { id: 'system', label: 'System' },
  { id: 'anonymous', label: 'Not signed in' },
];

const isActorType = (value: string | null): value is ActorType =>
  ACTOR_TYPES.some((type) => type.id !== 'any' && type.id === value);

/** The filters in the address (?company_id=&action=&actor_type=&actor_id=), as the API takes them. */
function filtersFrom(params: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  const company = params.get('company_id');
  if (company && /^[0-9]{1,10}$/.test(company)) filters.company_id = Number(company);
  const action = params.get('action')?.trim();
  if (action) filters.action = action;
  const actorType = params.get('actor_type');
  if (isActorType(actorType)) filters.actor_type = actorType;
  const actorId = params.get('actor_id')?.trim();
  if (actorId) filters.actor_id = actorId;
  return filters;
}

/** Every recorded change, sign-in and decision, newest first, with filters kept in the address. */
export function AuditLogPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersFrom(searchParams);
  const filterKey = JSON.stringify(filters);
  const pages = useCursorPages(filterKey);
  const events = useQuery(auditEventsQuery(filters, pages.cursor));
  const filtered = Object.keys(filters).length > 0;

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
        onApply={(next) => {
          const params = new URLSearchParams();
          for (const [name, value] of Object.entries(next))
            if (value !== undefined) params.set(name, String(value));
          setSearchParams(params);
        }}
        onClear={filtered ? () => setSearchParams({}) : undefined}
      />
      <QueryView
        query={events}
        loading="Loading the audit log…"
        errorTitle="The audit log could not be loaded."
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
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const params = new URLSearchParams();
    for (const name of ['company_id', 'action', 'actor_id']) {
      const value = String(form.get(name) ?? '').trim();
      if (value) params.set(name, value);
    }
    if (actorType !== 'any') params.set('actor_type', actorType);
    onApply(filtersFrom(params));
  };
  return (
    <Form className="audit-filters" onSubmit={submit} aria-label="Filter the audit log">
      <TextField
        name="company_id"
        label="Company ID"
        inputMode="numeric"
        pattern="[0-9]{1,10}"
        defaultValue={filters.company_id === undefined ? '' : String(filters.company_id)}
        errorMessage="A company ID is a number."
      />
      <TextField
        name="action"
        label="Action"
        placeholder="e.g. document.approved"
        defaultValue={filters.action ?? ''}
      />
      <SelectField label="Actor" options={ACTOR_TYPES} value={actorType} onChange={setActorType} />
      <TextField
        name="actor_id"
        label="Actor ID"
        description="An operator's ID, or a partner's company ID."
        defaultValue={filters.actor_id ?? ''}
      />
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
            {filtered ? 'No event matches these filters.' : 'Nothing has been recorded yet.'}
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
              {event.actor.type === 'operator' ? (
                <span className="data-table__secondary">Operator</span>
              ) : event.actor.type === 'partner' && event.actor.id ? (
                <span className="data-table__secondary">Company {event.actor.id}</span>
              ) : null}
            </Cell>
            <Cell>
              <CellLabel>Partner</CellLabel>
              {event.company_id === null ? (
                <span className="muted">—</span>
              ) : (
                <Link href={`/partners/${event.company_id}`}>Company {event.company_id}</Link>
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
