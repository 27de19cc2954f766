import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { DetailList } from '@/components/ui/detail-list';
import { Loading } from '@/components/ui/loading';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { InvitationPreview } from '@/lib/api/partner-types';
import { ROLE_DESCRIPTIONS, roleLabel } from '@/lib/partner-roles';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { invitationPreviewQuery, useAcceptInvitation } from '../api/invitation';
import { AuthCard } from './auth-card';
import { NewPasswordFields } from './new-password-fields';

const LABELS = { name: 'Your name', password: 'Password', password_confirmation: 'Password confirmation' };

export interface AcceptInvitationPageProps {
  /** The link's token (from its #token= fragment), or null when the link has none. */
  token: string | null;
  /** Accepted and signed in. */
  onAccepted: () => void;
}

/**
 * An invitation to a business's dashboard, from the e-mailed link: what it is for (the business,
 * the address and the role), then the invited person's name and password; accepting signs them in.
 */
export function AcceptInvitationPage({ token, onAccepted }: AcceptInvitationPageProps) {
  if (!token) {
    return (
      <Frame heading="This invitation link is incomplete" card="Your invitation">
        <Alert tone="warning">
          <p>
            Open the link in your invitation e-mail again. It ends with <code>#token=</code> and a long code;
            if you copy it, copy it whole.
          </p>
        </Alert>
        <SignInLink />
      </Frame>
    );
  }
  return <WithToken token={token} onAccepted={onAccepted} />;
}

function WithToken({ token, onAccepted }: { token: string; onAccepted: () => void }) {
  const preview = useQuery(invitationPreviewQuery(token));
  if (preview.isPending) {
    return (
      <Frame heading="Your invitation">
        <Loading label="Checking your invitation…" />
      </Frame>
    );
  }
  if (preview.isError) return <LinkNotUsable error={preview.error} />;
  return <AcceptForm token={token} invitation={preview.data} onAccepted={onAccepted} />;
}

function AcceptForm({
  token,
  invitation,
  onAccepted,
}: {
  token: string;
  invitation: InvitationPreview;
  onAccepted: () => void;
}) {
  const accept = useAcceptInvitation(token);
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setServerErrors({});
    accept.mutate(
      {
        name: String(form.get('name') ?? '').trim(),
        password: String(form.get('password') ?? ''),
        password_confirmation: String(form.get('password_confirmation') ?? ''),
      },
      {
        onSuccess: onAccepted,
        onError: (error) => {
          if (error instanceof ApiError) setServerErrors(fieldErrorSentences(error.errors, LABELS));
        },
      },
    );
  };
  const error = accept.error;
  // The link stopped working while the form was open (used in another tab, revoked, expired).
  if (error instanceof ApiError && (error.status === 404 || error.status === 410)) {
    return <LinkNotUsable error={error} />;
  }
  const otherError = error && !(error instanceof ApiError && Object.keys(error.errors).length > 0);

  return (
    <Frame
      heading={`Join ${visibleControls(invitation.business_name)}`}
      card="Set up your sign-in"
      description="Choose your name as your colleagues will see it, and a password."
    >
      <DetailList
        items={[
          { term: 'Business', value: <UserText>{invitation.business_name}</UserText> },
          { term: 'E-mail address', value: <UserText>{invitation.email}</UserText> },
          {
            term: 'Role',
            value: (
              <>
                <strong>{roleLabel(invitation.role)}</strong>: {ROLE_DESCRIPTIONS[invitation.role]}
              </>
            ),
          },
          { term: 'Link valid until', value: <DateTime value={invitation.expires_at} /> },
        ]}
      />
      <Form className="auth-form" onSubmit={submit} validationErrors={serverErrors}>
        {/* For password managers: the account the new password belongs to. */}
        <input
          type="email"
          name="username"
          value={invitation.email}
          autoComplete="username"
          readOnly
          hidden
        />
        <TextField
          name="name"
          label={LABELS.name}
          autoComplete="name"
          maxLength={191}
          isRequired
          autoFocus
          errorMessage={validationMessage('Enter your name.')}
        />
        <NewPasswordFields />
        {otherError ? (
          <Alert tone="error">
            <p>{errorMessage(error)}</p>
          </Alert>
        ) : null}
        <Button type="submit" isPending={accept.isPending}>
          {accept.isPending ? 'Signing you in…' : 'Accept and sign in'}
        </Button>
      </Form>
    </Frame>
  );
}

function LinkNotUsable({ error }: { error: Error }) {
  const expired = error instanceof ApiError && error.status === 410;
  const unknown = error instanceof ApiError && error.status === 404;
  const heading = expired
    ? 'This invitation has expired'
    : unknown
      ? 'This invitation link no longer works'
      : 'The invitation could not be checked';
  return (
    <Frame heading={heading} card="Your invitation">
      <Alert tone={expired || unknown ? 'warning' : 'error'}>
        <p>
          {expired
            ? 'Invitations work for 72 hours. Ask the person who invited you to resend it.'
            : unknown
              ? 'It was used already, replaced by a newer invitation, or withdrawn. If you accepted it, sign in; otherwise ask the person who invited you for a new one.'
              : errorMessage(error)}
        </p>
      </Alert>
      <SignInLink />
    </Frame>
  );
}

function SignInLink() {
  return (
    <div className="auth-card__links">
      <p>
        <Link href="/sign-in">Go to sign-in</Link>
      </p>
    </div>
  );
}

function Frame({
  heading,
  card = heading,
  description,
  children,
}: {
  heading: string;
  card?: string;
  description?: string;
  children: ReactNode;
}) {
  return (
    <>
      <title>{`${heading} · Partner dashboard`}</title>
      <HomeLayout
        heading={heading}
        intro="You were invited to a business's partner dashboard."
        primary={
          <AuthCard title={card} {...(description ? { description } : {})}>
            {children}
          </AuthCard>
        }
        secondary={<RolesCard />}
      />
    </>
  );
}

/** What each role may do, beside the form. */
function RolesCard() {
  return (
    <AuthCard title="Roles">
      <dl className="auth-roles">
        {(Object.keys(ROLE_DESCRIPTIONS) as Array<keyof typeof ROLE_DESCRIPTIONS>).map((role) => (
          <div key={role}>
            <dt>{roleLabel(role)}</dt>
            <dd>{ROLE_DESCRIPTIONS[role]}</dd>
          </div>
        ))}
      </dl>
    </AuthCard>
  );
}
