import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DateTime } from '@/components/ui/date-time';
import { ModalDialog } from '@/components/ui/modal-dialog';
import { OneTimeSecret } from '@/components/ui/one-time-secret';
import { Pager } from '@/components/ui/pager';
import { QueryView } from '@/components/ui/query-view';
import { RadioGroupField } from '@/components/ui/radio-group-field';
import { SectionHeader } from '@/components/ui/section-header';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { ApiKey, CreatedApiKey, Environment } from '@/lib/api/partner-types';
import { useCursorPages } from '@/lib/use-cursor-pages';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { apiKeysQuery, useCreateApiKey, useRevokeApiKey } from '../api/api-keys';

export interface ApiKeysPageProps {
  environment: Environment;
  /** Live keys need an approved partner (onboarding_status active). */
  liveAllowed: boolean;
}

/** API keys of both environments: create (the secret shown once), list by their last 4 characters, revoke. */
export function ApiKeysPage({ environment, liveAllowed }: ApiKeysPageProps) {
  const pages = useCursorPages('api-keys');
  const keys = useQuery(apiKeysQuery(pages.cursor));
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  return (
    <section aria-labelledby="api-keys-heading">
      <title>API keys · Partner dashboard</title>
      <SectionHeader
        id="api-keys-heading"
        title="API keys"
        description={
          <p>
            Your backend authenticates with a secret key: <code>sk_sandbox_…</code> in the sandbox,{' '}
            <code>sk_live_…</code> in live. Send it as <code>Authorization: Bearer &lt;key&gt;</code>. Keep
            keys on your servers, never in an app or a browser.
          </p>
        }
        action={<Button onPress={() => setCreating(true)}>Create API key</Button>}
      />
      <QueryView query={keys} loading="Loading API keys…" errorTitle="The API keys could not be loaded.">
        {(data) => (
          <>
            <DataTable aria-label="API keys">
              <TableHeader>
                <Column isRowHeader>Name</Column>
                <Column>Environment</Column>
                <Column>Key</Column>
                <Column>Status</Column>
                <Column>Created</Column>
                <Column>Last used</Column>
                <Column>
                  <span className="visually-hidden">Actions</span>
                </Column>
              </TableHeader>
              <TableBody
                items={data.items}
                renderEmptyState={() => (
                  <p className="data-table__empty">No API keys yet. Create one for your backend.</p>
                )}
              >
                {(key) => (
                  <Row id={key.id} textValue={visibleControls(key.name)}>
                    <Cell>
                      <span className="data-table__primary">
                        <UserText>{key.name}</UserText>
                      </span>
                    </Cell>
                    <Cell>
                      <CellLabel>Environment</CellLabel>
                      <Badge tone={key.environment === 'live' ? 'danger' : 'neutral'}>
                        {key.environment === 'live' ? 'Live' : 'Sandbox'}
                      </Badge>
                    </Cell>
                    <Cell>
                      <CellLabel>Key</CellLabel>
                      <code>
                        sk_{key.environment}_…{key.last4}
                      </code>
                    </Cell>
                    <Cell>
                      <CellLabel>Status</CellLabel>
                      <Badge tone={key.status === 'active' ? 'success' : 'neutral'}>
                        {key.status === 'active' ? 'Active' : 'Revoked'}
                      </Badge>
                    </Cell>
                    <Cell>
                      <CellLabel>Created</CellLabel>
                      <DateTime value={key.created_at} />
                      {key.created_by ? (
                        <span className="data-table__secondary">
                          by <UserText>{key.created_by.name}</UserText>
                        </span>
                      ) : null}
                    </Cell>
                    <Cell>
                      <CellLabel>Last used</CellLabel>
                      {key.last_used_at ? (
                        <DateTime value={key.last_used_at} />
                      ) : (
                        <span className="muted">Never</span>
                      )}
                    </Cell>
                    <Cell>
                      {key.status === 'active' ? (
                        <Button
                          variant="secondary"
                          size="small"
                          aria-label={`Revoke ${visibleControls(key.name)}`}
                          onPress={() => setRevoking(key)}
                        >
                          Revoke
                        </Button>
                      ) : null}
                    </Cell>
                  </Row>
                )}
              </TableBody>
            </DataTable>
            <Pager label="API key pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryView>
      <CreateKeyDialog
        isOpen={creating}
        onOpenChange={setCreating}
        environment={environment}
        liveAllowed={liveAllowed}
      />
      <RevokeKeyDialog apiKey={revoking} onClose={() => setRevoking(null)} />
    </section>
  );
}

function CreateKeyDialog({
  isOpen,
  onOpenChange,
  environment,
  liveAllowed,
}: {
  isOpen: boolean;
  onOpenChange: (isOpen: boolean) => void;
  environment: Environment;
  liveAllowed: boolean;
}) {
  const create = useCreateApiKey();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const close = (open: boolean) => {
    if (!open) {
      setCreated(null);
      setServerErrors({});
      create.reset();
    }
    onOpenChange(open);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setServerErrors({});
    create.mutate(
      {
        name: String(form.get('name') ?? '').trim(),
        environment: String(form.get('environment') ?? 'sandbox') as Environment,
      },
      {
        onSuccess: setCreated,
        onError: (error) => {
          if (error instanceof ApiError) {
            setServerErrors(fieldErrorSentences(error.errors, { name: 'Name', environment: 'Environment' }));
          }
        },
      },
    );
  };
  const otherError =
    create.error && !(create.error instanceof ApiError && Object.keys(create.error.errors).length > 0);

  return (
    <ModalDialog
      title={created ? 'Your new API key' : 'Create an API key'}
      isOpen={isOpen}
      onOpenChange={close}
    >
      {(closeDialog) =>
        created ? (
          <div className="dialog__body">
            <p>
              <strong>
                <UserText>{created.name}</UserText>
              </strong>{' '}
              ({created.environment === 'live' ? 'live' : 'sandbox'}) is ready.
            </p>
            {created.key ? (
              <OneTimeSecret label="API key" secret={created.key}>
                <p>
                  We keep only a hash of it: after you close this dialog, it is shown as …{created.last4} and
                  cannot be read again. If you lose it, revoke it and create another.
                </p>
              </OneTimeSecret>
            ) : (
              <Alert tone="warning">
                <p>
                  This answer was a replay, so the secret cannot be shown. Revoke this key and create another.
                </p>
              </Alert>
            )}
            <div className="dialog__actions">
              <Button onPress={closeDialog}>I have stored the key</Button>
            </div>
          </div>
        ) : (
          <Form className="dialog__body" onSubmit={submit} validationErrors={serverErrors}>
            <TextField
              name="name"
              label="Name"
              description="What the key is for, e.g. backend-production."
              maxLength={100}
              isRequired
              autoFocus
              errorMessage={validationMessage('Give the key a name.')}
            />
            <RadioGroupField
              name="environment"
              label="Environment"
              defaultValue={environment === 'live' && liveAllowed ? 'live' : 'sandbox'}
              options={[
                { id: 'sandbox', label: 'Sandbox' },
                { id: 'live', label: 'Live', isDisabled: !liveAllowed },
              ]}
              description={
                liveAllowed ? undefined : 'Live keys are available once your onboarding is approved.'
              }
            />
            {otherError ? (
              <Alert tone="error">
                <p>{errorMessage(create.error)}</p>
              </Alert>
            ) : null}
            <div className="dialog__actions">
              <Button variant="secondary" onPress={closeDialog}>
                Cancel
              </Button>
              <Button type="submit" isPending={create.isPending}>
                {create.isPending ? 'Creating…' : 'Create key'}
              </Button>
            </div>
          </Form>
        )
      }
    </ModalDialog>
  );
}

function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const revoke = useRevokeApiKey();
  return (
    <ConfirmDialog
      title={`Revoke ${apiKey ? visibleControls(apiKey.name) : 'this key'}?`}
      isOpen={apiKey !== null}
      onOpenChange={(open) => {
        if (!open) {
          revoke.reset();
          onClose();
        }
      }}
      confirmLabel="Revoke key"
      pendingLabel="Revoking…"
      isPending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => apiKey && revoke.mutate(apiKey.id, { onSuccess: onClose })}
    >
      <p>
        Requests with the key ending …{apiKey?.last4} will be refused at once. This cannot be undone: your
        backend needs another key to keep working.
      </p>
    </ConfirmDialog>
  );
}
