import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Cell, Column, Form, Link, Row, TableBody, TableHeader } from 'react-aria-components';
import { RoleNote } from '@/components/role-note';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { OneTimeSecret } from '@/components/ui/one-time-secret';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { SectionHeader } from '@/components/ui/section-header';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { DeliveryAttempt, Environment, WebhookEndpoint } from '@/lib/api/partner-types';
import { useAccess } from '@/lib/partner-roles';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import {
  deliveriesQuery,
  useRetryDelivery,
  useRotateSecret,
  useSendTestEvent,
  useSetWebhook,
  webhookQuery,
} from '../api/webhooks';
import { eventTypeLabel } from '../event-labels';
import { AttemptResult, ResponseExcerpt } from './event-page';
import './webhooks.css';

/** This environment's endpoint with its secret handling, and the delivery log with manual retries. */
export function WebhooksPage({ environment }: { environment: Environment }) {
  return (
    <div className="webhooks">
      <title>Webhooks · Partner dashboard</title>
      <RoleNote access="webhooks" />
      <EndpointSection environment={environment} />
      <DeliveriesSection />
    </div>
  );
}

function EndpointSection({ environment }: { environment: Environment }) {
  const endpoint = useQuery(webhookQuery);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const rotate = useRotateSecret();
  const canChange = useAccess('webhooks').allowed;
  const headingId = useId();
  const environmentName = environment === 'live' ? 'live' : 'sandbox';

  return (
    <Card labelledBy={headingId} className="webhooks__endpoint">
      <SectionHeader
        id={headingId}
        title={`Endpoint (${environmentName})`}
        description={
          <p>
            We POST every event of the {environmentName} environment to this URL, signed as Standard Webhooks
            (headers <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>).
            Answer 2xx within 10 seconds; anything else is retried with backoff for 24 hours.
            {environment === 'live' ? ' Live URLs must use https.' : ''}
          </p>
        }
      />
      {secret ? (
        <OneTimeSecret label="signing secret" secret={secret.value}>
          <p>
            Verify every delivery with it (any Standard Webhooks library does).{' '}
            {secret.rotated
              ? 'The previous secret keeps signing beside it for 24 hours, so your receiver can switch over.'
              : 'We keep it encrypted and never show it again; rotate it if it is lost.'}
          </p>
        </OneTimeSecret>
      ) : null}
      <QueryView
        query={endpoint}
        loading="Loading the endpoint…"
        errorTitle="The endpoint could not be loaded."
      >
        {(data) =>
          data === null && !canChange ? (
            <p className="muted">No endpoint is set for this environment.</p>
          ) : data === null || editing ? (
            <EndpointForm
              current={data}
              onSaved={(value) => {
                setEditing(false);
                if (value) setSecret({ value, rotated: false });
              }}
              onCancel={data ? () => setEditing(false) : undefined}
            />
          ) : (
            <>
              <EndpointDetails endpoint={data} />
              {canChange ? (
                <>
                  <div className="form-actions webhooks__actions">
                    <Button variant="secondary" size="small" onPress={() => setEditing(true)}>
                      Change URL
                    </Button>
                    <Button variant="secondary" size="small" onPress={() => setRotating(true)}>
                      Rotate secret
                    </Button>
                  </div>
                  <TestEvent />
                </>
              ) : null}
            </>
          )
        }
      </QueryView>
      <ConfirmDialog
        title="Rotate the signing secret?"
        tone="primary"
        isOpen={rotating}
        onOpenChange={(open) => {
          if (!open) rotate.reset();
          setRotating(open);
        }}
        confirmLabel="Rotate secret"
        pendingLabel="Rotating…"
        isPending={rotate.isPending}
        error={rotate.error}
        onConfirm={() =>
          rotate.mutate(undefined, {
            onSuccess: (data) => {
              if (data.secret) setSecret({ value: data.secret, rotated: true });
              setRotating(false);
            },
          })
        }
      >
        <p>
          A new secret signs every delivery from now on. For 24 hours the current one signs too, so you can
          update your receiver without missing events. The new secret is shown once.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

/** Sends a webhook.test event now and shows what the endpoint answered. */
function TestEvent() {
  const send = useSendTestEvent();
  const headingId = useId();
  const outcome = send.data;
  return (
    <section aria-labelledby={headingId} className="webhooks__test">
      <h3 id={headingId}>Test your endpoint</h3>
      <p>
        Sends a signed <code>webhook.test</code> event now and shows your endpoint's answer. It is not
        retried.
      </p>
      <Button variant="secondary" size="small" isPending={send.isPending} onPress={() => send.mutate()}>
        {send.isPending ? 'Sending…' : 'Send test event'}
      </Button>
      <div role="status" className="webhooks__test-outcome">
        {outcome ? (
          <>
            <p>
              <strong>
                {outcome.succeeded
                  ? 'Your endpoint accepted the test event.'
                  : 'Your endpoint did not accept the test event.'}
              </strong>{' '}
              <AttemptResult attempt={outcome} />{' '}
              {outcome.status_code === null ? null : (
                <span className="muted">in {outcome.latency_ms} ms</span>
              )}
            </p>
            <ResponseExcerpt attempt={outcome} />
            <p>
              <Link href={`/developers/events/${outcome.event_id}`}>View the test event</Link>
            </p>
          </>
        ) : null}
      </div>
      {send.error ? (
        <Alert tone="error" title="The test event was not sent.">
          <p>{errorMessage(send.error)}</p>
        </Alert>
      ) : null}
    </section>
  );
}

function EndpointDetails({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
    <DetailList
      items={[
        {
          term: 'URL',
          value: (
            <code>
              <UserText>{endpoint.url}</UserText>
            </code>
          ),
        },
        { term: 'Set', value: <DateTime value={endpoint.created_at} /> },
        { term: 'Last changed', value: <DateTime value={endpoint.updated_at} /> },
        {
          term: 'Previous secret',
          value: endpoint.previous_secret_expires_at ? (
            <>
              Still signing until <DateTime value={endpoint.previous_secret_expires_at} />
            </>
          ) : (
            <span className="muted">None</span>
          ),
        },
      ]}
    />
  );
}

function EndpointForm({
  current,
  onSaved,
  onCancel,
}: {
  current: WebhookEndpoint | null;
  /** The secret to show: only when the endpoint was first set. */
  onSaved: (secret: string | null) => void;
  onCancel: (() => void) | undefined;
}) {
  const set = useSetWebhook();
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setServerErrors({});
    set.mutate(String(new FormData(event.currentTarget).get('url') ?? '').trim(), {
      onSuccess: (data) => onSaved(current ? null : data.secret),
      onError: (error) => {
        if (error instanceof ApiError) setServerErrors(fieldErrorSentences(error.errors, { url: 'The URL' }));
      },
    });
  };
  const otherError =
    set.error && !(set.error instanceof ApiError && Object.keys(set.error.errors).length > 0);
  return (
    <Form className="webhooks__form" onSubmit={submit} validationErrors={serverErrors}>
      {current ? null : (
        <Alert tone="info">
          <p>No endpoint is set: events of this environment are kept for 30 days but not delivered.</p>
        </Alert>
      )}
      <TextField
        name="url"
        type="url"
        label="Endpoint URL"
        placeholder="https://hooks.example.com/baas"
        defaultValue={current?.url ?? ''}
        maxLength={2048}
        isRequired
        description={
          current ? 'Changing the URL keeps the signing secret.' : 'A new signing secret is created.'
        }
        errorMessage={validationMessage('Enter the URL of your endpoint.', 'Enter a full URL like https://…')}
      />
      {otherError ? (
        <Alert tone="error">
          <p>{errorMessage(set.error)}</p>
        </Alert>
      ) : null}
      <div className="form-actions">
        <Button type="submit" isPending={set.isPending}>
          {set.isPending ? 'Saving…' : current ? 'Save URL' : 'Set endpoint'}
        </Button>
        {onCancel ? (
          <Button variant="quiet" onPress={onCancel}>
            Cancel
          </Button>
        ) : null}
      </div>
    </Form>
  );
}

function DeliveriesSection() {
  const pages = useCursorPages('deliveries');
  const deliveries = useQuery(deliveriesQuery(pages.cursor));
  const retry = useRetryDelivery();
  const canRetry = useAccess('webhooks').allowed;
  const [retried, setRetried] = useState<DeliveryAttempt | null>(null);
  const headingId = useId();

  return (
    <section aria-labelledby={headingId} className="webhooks__deliveries">
      <SectionHeader
        id={headingId}
        title="Delivery log"
        description={
          <p>
            Every attempt to deliver an event to your endpoint, newest first. Retry one to send its event
            again now.
          </p>
        }
        action={
          <Button
            variant="secondary"
            size="small"
            onPress={() => deliveries.refetch()}
            isPending={deliveries.isFetching}
          >
            Refresh
          </Button>
        }
      />
      <div role="status" className="webhooks__status">
        {retried ? `Retried: attempt ${retried.attempt} ${retried.succeeded ? 'succeeded' : 'failed'}.` : ''}
      </div>
      {retry.error ? (
        <Alert tone="error" title="The delivery was not retried.">
          <p>{errorMessage(retry.error)}</p>
        </Alert>
      ) : null}
      <QueryView
        query={deliveries}
        loading="Loading deliveries…"
        errorTitle="The delivery log could not be loaded."
      >
        {(data) => (
          <>
            <DataTable aria-label="Delivery attempts">
              <TableHeader>
                <Column isRowHeader>Event</Column>
                <Column>Attempt</Column>
                <Column>Result</Column>
                <Column>Latency</Column>
                <Column>Time</Column>
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => <p className="data-table__empty">No deliveries yet.</p>}
              >
                {(attempt) => (
                  <Row
                    id={attempt.id}
                    textValue={`${eventTypeLabel(attempt.event_type)} attempt ${attempt.attempt}`}
                  >
                    <Cell>
                      <Link href={`/developers/events/${attempt.event_id}`} className="data-table__primary">
                        {eventTypeLabel(attempt.event_type)}
                      </Link>
                      <code className="data-table__secondary">{attempt.event_id}</code>
                    </Cell>
                    <Cell>
                      <CellLabel>Attempt</CellLabel>#{attempt.attempt}{' '}
                      <span className="muted">({attempt.trigger === 'manual' ? 'manual' : 'automatic'})</span>
                    </Cell>
                    <Cell>
                      <CellLabel>Result</CellLabel>
                      <AttemptResult attempt={attempt} />
                      <ResponseExcerpt attempt={attempt} />
                    </Cell>
                    <Cell>
                      <CellLabel>Latency</CellLabel>
                      {attempt.status_code === null ? (
                        <span className="muted">No answer</span>
                      ) : (
                        `${attempt.latency_ms} ms`
                      )}
                    </Cell>
                    <Cell>
                      <CellLabel>Time</CellLabel>
                      <DateTime value={attempt.created_at} />
                    </Cell>
                    <Cell>
                      {canRetry ? (
                        <Button
                          variant="secondary"
                          size="small"
                          aria-label={`Retry ${eventTypeLabel(attempt.event_type)} attempt ${attempt.attempt}`}
                          isPending={retry.isPending && retry.variables === attempt.id}
                          onPress={() => retry.mutate(attempt.id, { onSuccess: setRetried })}
                        >
                          Retry
                        </Button>
                      ) : null}
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
            <Pager label="Delivery log pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
    </section>
  );
}
