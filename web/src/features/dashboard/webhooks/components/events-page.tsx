import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Cell, Column, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SectionHeader } from '@/components/ui/section-header';
import { SelectField } from '@/components/ui/select-field';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { EventType, PartnerEvent } from '@/lib/api/partner-types';
import { useAccess } from '@/lib/partner-roles';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { eventsQuery, useRedeliverEvent } from '../api/webhooks';
import {
  DELIVERY_STATUS_OPTIONS,
  type DeliveryStatus,
  deliveryStatusBadge,
  EVENT_TYPE_OPTIONS,
  eventSummary,
  eventTypeLabel,
} from '../event-labels';
import './webhooks.css';

const TYPE_FILTERS = [{ id: 'all', label: 'All event types' }, ...EVENT_TYPE_OPTIONS];
const DELIVERY_FILTERS = [{ id: 'all', label: 'Any delivery status' }, ...DELIVERY_STATUS_OPTIONS];
const isEventType = (value: string | null): value is EventType =>
  EVENT_TYPE_OPTIONS.some((option) => option.id === value);
const isDeliveryStatus = (value: string | null): value is DeliveryStatus =>
  DELIVERY_STATUS_OPTIONS.some((option) => option.id === value);

/**
 * The events of the last 30 days in this environment, filtered by type and delivery status (kept in
 * ?type= and ?delivery=), each linking to its page, with redelivery.
 */
export function EventsPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const shownType = searchParams.get('type');
  const shownDelivery = searchParams.get('delivery');
  const type = isEventType(shownType) ? shownType : undefined;
  const deliveryStatus = isDeliveryStatus(shownDelivery) ? shownDelivery : undefined;
  const pages = useCursorPages(`${type ?? 'all'}:${deliveryStatus ?? 'all'}`);
  const events = useQuery(eventsQuery({ type, deliveryStatus }, pages.cursor));
  const filter = (key: 'type' | 'delivery', value: string) => {
    const next = new URLSearchParams(searchParams);
    if (value === 'all') next.delete(key);
    else next.set(key, value);
    setSearchParams(next, { replace: true });
  };
  const redeliver = useRedeliverEvent();
  const canRedeliver = useAccess('webhooks').allowed;
  const [queued, setQueued] = useState<PartnerEvent | null>(null);
  const headingId = useId();

  return (
    <section aria-labelledby={headingId}>
      <title>Events · Partner dashboard</title>
      <SectionHeader
        id={headingId}
        title="Events"
        description={
          <p>
            What happened in this environment over the last 30 days, newest first: the same payloads your
            webhook endpoint receives. Redeliver an event you missed; it keeps its webhook-id, so your
            receiver can deduplicate it.
          </p>
        }
      />
      <div className="events__toolbar">
        <SelectField
          label="Event type"
          name="type"
          options={TYPE_FILTERS}
          value={type ?? 'all'}
          onChange={(value) => filter('type', value)}
        />
        <SelectField
          label="Delivery status"
          name="delivery"
          options={DELIVERY_FILTERS}
          value={deliveryStatus ?? 'all'}
          onChange={(value) => filter('delivery', value)}
        />
      </div>
      <div role="status" className="webhooks__status">
        {queued ? `${eventTypeLabel(queued.type)} ${queued.id} is queued for redelivery.` : ''}
      </div>
      {redeliver.error ? (
        <Alert tone="error" title="The event was not redelivered.">
          {redeliver.error instanceof ApiError &&
          redeliver.error.errorCode === 'WEBHOOK_ENDPOINT_REQUIRED' ? (
            <p>
              No webhook endpoint is set for this environment.{' '}
              <Link href="/developers/webhooks">Set one</Link> first.
            </p>
          ) : (
            <p>{errorMessage(redeliver.error)}</p>
          )}
        </Alert>
      ) : null}
      <QueryView query={events} loading="Loading events…" errorTitle="The events could not be loaded.">
        {(data) => (
          <>
            <DataTable aria-label="Events">
              <TableHeader>
                <Column isRowHeader>Event</Column>
                <Column>Summary</Column>
                <Column>Delivery</Column>
                <Column>Time</Column>
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => (
                  <p className="data-table__empty">
                    {type || deliveryStatus
                      ? 'No events match these filters in the last 30 days.'
                      : 'No events in the last 30 days.'}
                  </p>
                )}
              >
                {(event) => (
                  <Row id={event.id} textValue={`${eventTypeLabel(event.type)} ${event.id}`}>
                    <Cell>
                      <Link href={`/developers/events/${event.id}`} className="data-table__primary">
                        {eventTypeLabel(event.type)}
                      </Link>
                      <code className="data-table__secondary">{event.id}</code>
                    </Cell>
                    <Cell>
                      <CellLabel>Summary</CellLabel>
                      <UserText className="events__summary">{eventSummary(event)}</UserText>
                    </Cell>
                    <Cell>
                      <CellLabel>Delivery</CellLabel>
                      <Badge tone={deliveryStatusBadge(event.delivery.status).tone}>
                        {deliveryStatusBadge(event.delivery.status).label}
                      </Badge>
                      <span className="data-table__secondary">
                        {event.delivery.attempts === 1 ? '1 attempt' : `${event.delivery.attempts} attempts`}
                      </span>
                    </Cell>
                    <Cell>
                      <CellLabel>Time</CellLabel>
                      <DateTime value={event.created_at} />
                    </Cell>
                    <Cell>
                      {canRedeliver ? (
                        <Button
                          variant="secondary"
                          size="small"
                          aria-label={`Redeliver ${eventTypeLabel(event.type)} ${event.id}`}
                          isPending={redeliver.isPending && redeliver.variables === event.id}
                          onPress={() => {
                            setQueued(null);
                            redeliver.mutate(event.id, { onSuccess: () => setQueued(event) });
                          }}
                        >
                          Redeliver
                        </Button>
                      ) : null}
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
            <Pager label="Event pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </section>
  );
}
