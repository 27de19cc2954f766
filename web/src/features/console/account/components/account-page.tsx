import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Cell, Column, Form, Row, TableBody, TableHeader } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { PageHeader } from '@/components/ui/page-header';
import { QueryView } from '@/components/ui/query-view';
import { CellLabel, DataTable } from '@/components/ui/table';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import type { OperatorIdentity } from '@/lib/api/operator-types';
import { useFieldErrors } from '@/lib/validation-message';
import { ownSessionsQuery, useChangePassword, useEndOtherSessions, useEndSession } from '../api/account';
import './account.css';

/** The signed-in operator's own account: its password and the sessions it has open. */
export function AccountPage({ operator }: { operator: OperatorIdentity }) {
  return (
    <div className="account-page">
      <title>Your account · Operator console</title>
      <PageHeader
        title="Your account"
        description={`${operator.name} · ${operator.email}. Your role is set by an admin.`}
      />
      <ChangePassword email={operator.email} />
      <Sessions />
    </div>
  );
}

function ChangePassword({ email }: { email: string }) {
  const change = useChangePassword();
  // A new form after each success, so the browser forgets what was typed.
  const [round, setRound] = useState(0);
  const fieldErrors = useFieldErrors(change.error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    change.mutate(
      {
        current_password: String(form.get('current_password') ?? ''),
        password: String(form.get('password') ?? ''),
        password_confirmation: String(form.get('password_confirmation') ?? ''),
      },
      { onSuccess: () => setRound((value) => value + 1) },
    );
  };
  return (
    <section aria-labelledby="password-heading" className="account-page__section">
      <h2 id="password-heading">Password</h2>
      <Card>
        <Form key={round} className="account-page__form" onSubmit={submit} validationErrors={fieldErrors}>
          <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
          <TextField
            name="current_password"
            type="password"
            label="Current password"
            autoComplete="current-password"
            isRequired
            errorMessage={({ validationErrors }) =>
              validationErrors.length > 0 ? validationErrors.join(' ') : 'Enter your current password.'
            }
          />
          <TextField
            name="password"
            type="password"
            label="New password"
            autoComplete="new-password"
            isRequired
            minLength={8}
            description="At least 8 characters. Not a common password, your e-mail address or the current one."
            errorMessage={({ validationDetails, validationErrors }) =>
              validationErrors.length > 0
                ? validationErrors.join(' ')
                : validationDetails.valueMissing
                  ? 'Choose a new password.'
                  : 'Use at least 8 characters.'
            }
          />
          <TextField
            name="password_confirmation"
            type="password"
            label="Confirm new password"
            autoComplete="new-password"
            isRequired
            errorMessage={({ validationErrors }) =>
              validationErrors.length > 0 ? validationErrors.join(' ') : 'Enter the new password again.'
            }
          />
          <p className="muted">Your other sessions end when the password changes; this one stays.</p>
          {change.error && Object.keys(fieldErrors).length === 0 ? (
            <Alert tone="error">
              <p>{errorMessage(change.error)}</p>
            </Alert>
          ) : null}
          {change.data && round > 0 ? (
            <Alert tone="success">
              <p>
                Password changed.{' '}
                {change.data.sessions_ended === 0
                  ? 'You had no other session open.'
                  : change.data.sessions_ended === 1
                    ? 'Your one other session was signed out.'
                    : `Your ${change.data.sessions_ended} other sessions were signed out.`}
              </p>
            </Alert>
          ) : null}
          <Button type="submit" isPending={change.isPending}>
            Change password
          </Button>
        </Form>
      </Card>
    </section>
  );
}

/** "Mozilla/5.0 (X11; Linux x86_64) … Chrome/131…" → "Chrome on Linux": enough to recognise a browser. */
export function describeBrowser(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : null;
  const system = /Windows/.test(userAgent)
    ? 'Windows'
    : /Android/.test(userAgent)
      ? 'Android'
      : /iPhone|iPad/.test(userAgent)
        ? 'iOS'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.slice(0, 60);
}

function Sessions() {
  const sessions = useQuery(ownSessionsQuery);
  const end = useEndSession();
  const endOthers = useEndOtherSessions();
  const [announcement, setAnnouncement] = useState('');
  return (
    <section aria-labelledby="sessions-heading" className="account-page__section">
      <div className="account-page__section-head">
        <h2 id="sessions-heading">Sessions</h2>
        <Button
          variant="secondary"
          size="small"
          isPending={endOthers.isPending}
          isDisabled={!sessions.data || sessions.data.items.length < 2}
          onPress={() =>
            endOthers.mutate(undefined, {
              onSuccess: ({ sessions_ended }) =>
                setAnnouncement(
                  `${sessions_ended} other session${sessions_ended === 1 ? '' : 's'} signed out.`,
                ),
            })
          }
        >
          Sign out all other sessions
        </Button>
      </div>
      <p className="muted">
        Where you are signed in to the console. A session ends 8 hours after sign-in, or after 30 minutes
        without use. Sign out any you do not recognise, then change your password.
      </p>
      <span className="visually-hidden" role="status">
        {announcement}
      </span>
      {end.error || endOthers.error ? (
        <Alert tone="error">
          <p>{errorMessage(end.error ?? endOthers.error)}</p>
        </Alert>
      ) : null}
      <QueryView
        query={sessions}
        loading="Loading your sessions…"
        errorTitle="Your sessions could not be loaded."
      >
        {(data) => (
          <DataTable aria-labelledby="sessions-heading">
            <TableHeader>
              <Column isRowHeader>Browser</Column>
              <Column>Address</Column>
              <Column>Signed in</Column>
              <Column>Last used</Column>
              <Column>Actions</Column>
            </TableHeader>
            <TableBody items={data.items}>
              {(session) => (
                <Row id={session.id} textValue={describeBrowser(session.user_agent)}>
                  <Cell>
                    <span className="account-page__browser" title={session.user_agent ?? undefined}>
                      {describeBrowser(session.user_agent)}
                    </span>
                    {session.current ? <Badge tone="success">This session</Badge> : null}
                  </Cell>
                  <Cell>
                    <CellLabel>Address</CellLabel>
                    {session.ip ?? <span className="muted">Unknown</span>}
                  </Cell>
                  <Cell>
                    <CellLabel>Signed in</CellLabel>
                    <DateTime value={session.created_at} />
                  </Cell>
                  <Cell>
                    <CellLabel>Last used</CellLabel>
                    <DateTime value={session.last_seen_at} variant="relative" />
                  </Cell>
                  <Cell>
                    <CellLabel>Actions</CellLabel>
                    {session.current ? (
                      <span className="muted">Use Sign out</span>
                    ) : (
                      <Button
                        size="small"
                        variant="secondary"
                        aria-label={`Sign out ${describeBrowser(session.user_agent)}, signed in from ${session.ip ?? 'an unknown address'}`}
                        isPending={end.isPending && end.variables === session.id}
                        onPress={() =>
                          end.mutate(session.id, { onSuccess: () => setAnnouncement('Session signed out.') })
                        }
                      >
                        Sign out
                      </Button>
                    )}
                  </Cell>
                </Row>
              )}
            </TableBody>
          </DataTable>
        )}
      </QueryView>
    </section>
  );
}
