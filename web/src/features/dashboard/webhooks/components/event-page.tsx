import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Cell, Column, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { QueryError, QueryView } from '@/components/ui/query-view';
import { SectionHeader } from '@/components/ui/section-header';
import { CellLabel, DataTable } from '@/components/ui/table';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { DeliveryAttempt, Environment, PartnerEvent } from '@/lib/api/partner-types';
import { useAccess } from '@/lib/partner-roles';
import { eventDeliveriesQuery, eventQuery, useRedeliverEvent } from '../api/webhooks';
import { deliveryError, deliveryStatusBadge, eventSummary, eventTypeLabel } from '../event-labels';
import './webhooks.css';

/**
 * The body an event's deliveries carry, `{type, timestamp, data}`, pretty-printed: the key order and
 * values of the delivered JSON (docs/partner-guide.md, "Webhooks"), the timestamp being the event's
 * creation.
 */
const deliveredBody = (event: PartnerEvent): string =>
  JSON.stringify({ type: event.type, timestamp: event.created_at, data: event.data }, null, 2);

/** One event: its payload as delivered (copyable), its delivery status and every attempt with the receiver's answer. */
export function EventPage({ id, environment }: { id: string; environment: Environment }) {
  const event = useQuery(eventQuery(id));
  const back = (
    <Link href="/developers/events" className="event__back">
      ← Events
    </Link>
  );
  return (
    <div className="event">
      <title>Event · Partner dashboard</title>
      {back}
      <QueryView
        query={event}
        loading="Loading the event…"
        renderError={(error) =>
          error instanceof ApiError && error.status === 404 ? (
            <Alert tone="warning" title="No such event here.">
              <p>{`There is no event with this id in the ${environment} environment over the last 30 days. Events of the other environment are not shown here.`}</p>
            </Alert>
          ) : (
            <QueryError
              error={error}
              title="The event could not be loaded."
              onRetry={() => event.refetch()}
            />
          )
        }
      >
        {(data) => <EventDetails event={data} />}
      </QueryView>
    </div>
  );
}

function EventDetails({ event }: { event: PartnerEvent }) {
  const headingId = useId();
  const payloadId = useId();
  const redeliver = useRedeliverEvent();
  const canRedeliver = useAccess('webhooks').allowed;
  const [queued, setQueued] = useState(false);
  const badge = deliveryStatusBadge(event.delivery.status);
  const body = deliveredBody(event);
  return (
    <>
      <title>{`${eventTypeLabel(event.type)} ${event.id} · Partner dashboard`}</title>
      <Card labelledBy={headingId}>
        <SectionHeader
          id={headingId}
          title={eventTypeLabel(event.type)}
          description={
            <p>
              <code>{event.type}</code> · <UserText>{eventSummary(event)}</UserText>
            </p>
          }
          action={
            canRedeliver ? (
              <Button
                variant="secondary"
                size="small"
                isPending={redeliver.isPending}
                onPress={() => {
                  setQueued(false);
                  redeliver.mutate(event.id, { onSuccess: () => setQueued(true) });
                }}
              >
                Redeliver
              </Button>
            ) : undefined
          }
        />
        <div role="status" className="webhooks__status">
          {queued ? 'Queued for redelivery under the same webhook-id.' : ''}
        </div>
        {redeliver.error ? (
          <Alert tone="error" title="The event was not redelivered.">
            <p>{errorMessage(redeliver.error)}</p>
          </Alert>
        ) : null}
        <DetailList
          items={[
            { term: 'Event ID (webhook-id)', value: <code>{event.id}</code> },
            { term: 'Happened', value: <DateTime value={event.created_at} /> },
            { term: 'Delivery', value: <Badge tone={badge.tone}>{badge.label}</Badge> },
            {
              term: 'Attempts',
              value: String(event.delivery.attempts),
            },
            {
              term: 'Delivered',
              value: event.delivery.delivered_at ? (
                <DateTime value={event.delivery.delivered_at} />
              ) : (
                <span className="muted">Not yet</span>
              ),
            },
            {
              term: 'Next retry',
              value: event.delivery.next_attempt_at ? (
                <DateTime value={event.delivery.next_attempt_at} />
              ) : (
                <span className="muted">None scheduled</span>
              ),
            },
          ]}
        />
      </Card>
      <section aria-labelledby={payloadId} className="event__payload">
        <SectionHeader
          id={payloadId}
          title="Payload"
          description={<p>The JSON body POSTed to your endpoint, signed in the webhook-signature header.</p>}
          action={<CopyButton text={body} label="Copy payload" />}
        />
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region takes focus, so a keyboard can scroll a long payload. */}
        <section className="event__json" aria-labelledby={payloadId} tabIndex={0}>
          <pre>{body}</pre>
        </section>
      </section>
      <EventAttempts eventId={event.id} />
    </>
  );
}

function EventAttempts({ eventId }: { eventId: string }) {
  const attempts = useQuery(eventDeliveriesQuery(eventId));
  const headingId = useId();
  return (
    <section aria-labelledby={headingId}>
      <SectionHeader
        id={headingId}
        title="Delivery attempts"
        description={
          <p>Each attempt with your endpoint's answer: its status code, time and the start of its body.</p>
        }
        action={
          <Button
            variant="secondary"
            size="small"
            onPress={() => attempts.refetch()}
            isPending={attempts.isFetching}
          >
            Refresh
          </Button>
        }
      />
      <QueryView query={attempts} loading="Loading attempts…" errorTitle="The attempts could not be loaded.">
        {(data) => (
          <DataTable aria-label="Delivery attempts of this event">
            <TableHeader>
              <Column isRowHeader>Attempt</Column>
              <Column>Result</Column>
              <Column>Latency</Column>
              <Column>Time</Column>
              <Column>Response body</Column>
            </TableHeader>
            <TableBody
              items={data.items}
              renderEmptyState={() => <p className="data-table__empty">No attempt yet.</p>}
            >
              {(attempt) => <AttemptRow attempt={attempt} />}
            </TableBody>
          </DataTable>
        )}
      </QueryView>
    </section>
  );
}

function AttemptRow({ attempt }: { attempt: DeliveryAttempt }) {
  return (
    <Row id={attempt.id} textValue={`Attempt ${attempt.attempt}`}>
      <Cell>
        #{attempt.attempt} <span className="muted">({attempt.trigger})</span>
        <code className="data-table__secondary">
          <UserText>{attempt.url}</UserText>
        </code>
      </Cell>
      <Cell>
        <CellLabel>Result</CellLabel>
        <AttemptResult attempt={attempt} />
      </Cell>
      <Cell>
        <CellLabel>Latency</CellLabel>
        {attempt.status_code === null ? <span className="muted">No answer</span> : `${attempt.latency_ms} ms`}
      </Cell>
      <Cell>
        <CellLabel>Time</CellLabel>
        <DateTime value={attempt.created_at} />
      </Cell>
      <Cell>
        <CellLabel>Response body</CellLabel>
        <ResponseExcerpt attempt={attempt} />
      </Cell>
    </Row>
  );
}

/**
 * The attempt's outcome as a badge: the status code the receiver answered, or why none came; an
 * attempt still on its way, or one whose outcome was never recorded (the receiver may have got it).
 */
export function AttemptResult({ attempt }: { attempt: DeliveryAttempt }) {
  if (attempt.status === 'in_flight') return <Badge tone="neutral">Sending</Badge>;
  if (attempt.status === 'outcome_unknown') return <Badge tone="warning">Outcome unknown</Badge>;
  return attempt.succeeded ? (
    <Badge tone="success">Delivered{attempt.status_code ? ` · ${attempt.status_code}` : ''}</Badge>
  ) : (
    <Badge tone="danger">Failed · {deliveryError(attempt.error)}</Badge>
  );
}

/** The start of the receiver's answer, as text it wrote (it may be anything). */
export function ResponseExcerpt({ attempt }: { attempt: DeliveryAttempt }) {
  if (attempt.response_body_excerpt === null) {
    return <span className="muted">{attempt.status_code === null ? 'No answer' : 'Empty'}</span>;
  }
  return (
    <pre className="event__excerpt">
      <UserText>{attempt.response_body_excerpt}</UserText>
    </pre>
  );
}
