import { ApiError } from '@baas/sdk';
import { useQuery } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { Form, Link } from 'react-aria-components';
import { AuthenticatorKey } from '@/components/second-factor/authenticator-key';
import { RecoveryCodes } from '@/components/second-factor/recovery-codes';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { Loading } from '@/components/ui/loading';
import { QueryView } from '@/components/ui/query-view';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import type { Invitation, SecondFactorEnrolment } from '@/lib/api/operator-types';
import { useFieldErrors } from '@/lib/validation-message';
import { invitationQuery, useAcceptInvitation, useStartEnrolment } from '../api/invitation';
import './setup.css';

const ROLE_NAMES = { admin: 'an admin', reviewer: 'a reviewer' } as const;

export interface SetupPageProps {
  /** The link's token (from its #token= fragment), or null when the link has none. */
  token: string | null;
  /** After the recovery codes are saved: into the console. */
  onFinished: () => void;
}

/**
 * First-time set-up from an invitation link, or a new second factor after an admin reset it: the
 * operator's details (new operators), the authenticator app (QR code and key, confirmed by a code),
 * then the recovery codes, shown once.
 */
export function SetupPage({ token, onFinished }: SetupPageProps) {
  if (!token) {
    return (
      <SetupFrame title="This set-up link is incomplete" heading="This set-up link is incomplete">
        <p>
          Open the full link an admin gave you. It ends with <code>#token=</code> and a long code; copy it
          whole into the address bar.
        </p>
        <SignInLink />
      </SetupFrame>
    );
  }
  return <SetupWithToken token={token} onFinished={onFinished} />;
}

function SetupWithToken({ token, onFinished }: { token: string; onFinished: () => void }) {
  const invitation = useQuery(invitationQuery(token));
  return (
    <QueryView
      query={invitation}
      loading={
        <SetupFrame title="Set-up link" heading="Checking your set-up link">
          <Loading label="Checking the link…" />
        </SetupFrame>
      }
      renderError={(error) => <InvalidLink error={error} />}
    >
      {(details) => <SetupSteps token={token} details={details} onFinished={onFinished} />}
    </QueryView>
  );
}

/** The steps of a set-up link that works, from what it is for. */
function SetupSteps({
  token,
  details,
  onFinished,
}: {
  token: string;
  details: Invitation;
  onFinished: () => void;
}) {
  const enrolment = useStartEnrolment(token);
  const acceptance = useAcceptInvitation(token);
  const reset = details.purpose === 'reset_second_factor';
  const heading = reset ? 'Set up a new authenticator' : 'Set up your operator account';
  const steps = reset
    ? ['Your password', 'Authenticator app', 'Recovery codes']
    : ['Your details', 'Authenticator app', 'Recovery codes'];

  if (acceptance.data) {
    return (
      <SetupFrame title={heading} heading={heading} steps={steps} step={steps.length - 1}>
        <RecoveryCodes
          codes={acceptance.data.recovery_codes}
          email={details.email}
          appName="BaaS operator console"
          fileName="baas-console-recovery-codes.txt"
          continueLabel="Continue to the console"
          onDone={onFinished}
        />
      </SetupFrame>
    );
  }
  if (enrolment.data) {
    return (
      <SetupFrame title={heading} heading={heading} steps={steps} step={steps.length - 2}>
        <AuthenticatorStep
          enrolment={enrolment.data}
          email={details.email}
          isPending={acceptance.isPending}
          error={acceptance.error}
          onSubmit={(code) => acceptance.mutate(code)}
        />
      </SetupFrame>
    );
  }
  return (
    <SetupFrame title={heading} heading={heading} steps={steps} step={0}>
      <InvitationSummary details={details} />
      {reset ? (
        <ResetStep
          email={details.email}
          isPending={enrolment.isPending}
          error={enrolment.error}
          onSubmit={(password) => enrolment.mutate({ password })}
        />
      ) : (
        <DetailsStep
          email={details.email}
          isPending={enrolment.isPending}
          error={enrolment.error}
          onSubmit={(body) => enrolment.mutate(body)}
        />
      )}
    </SetupFrame>
  );
}

function SetupFrame({
  title,
  heading,
  steps,
  step,
  children,
}: {
  title: string;
  heading: string;
  steps?: string[];
  step?: number;
  children: ReactNode;
}) {
  return (
    <div className="setup">
      <title>{`${title} · Operator console`}</title>
      <h1>{heading}</h1>
      {steps && step !== undefined ? (
        <ol className="setup__steps" aria-label="Set-up steps">
          {steps.map((name, index) => (
            <li
              key={name}
              className="setup__step"
              data-state={index < step ? 'done' : index === step ? 'current' : 'next'}
              aria-current={index === step ? 'step' : undefined}
            >
              <span className="setup__step-number" aria-hidden="true">
                {index + 1}
              </span>
              <span>
                <span className="visually-hidden">{`Step ${index + 1} of ${steps.length}: `}</span>
                {name}
                {index < step ? <span className="visually-hidden"> (done)</span> : null}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
      <Card className="setup__card">{children}</Card>
    </div>
  );
}

function InvitationSummary({ details }: { details: Invitation }) {
  return (
    <p className="setup__summary">
      {details.purpose === 'invite' ? 'You were invited' : 'You sign in'} as {ROLE_NAMES[details.role]} with{' '}
      <strong>{details.email}</strong>. This link works once and expires{' '}
      <DateTime value={details.expires_at} />.
    </p>
  );
}

function InvalidLink({ error }: { error: Error }) {
  const expired = error instanceof ApiError && error.status === 410;
  const unknown = error instanceof ApiError && error.status === 404;
  const heading = expired
    ? 'This set-up link has expired'
    : unknown
      ? 'This set-up link cannot be used'
      : 'The set-up link could not be checked';
  return (
    <SetupFrame title={heading} heading={heading}>
      <Alert tone={expired || unknown ? 'warning' : 'error'}>
        <p>
          {expired
            ? 'Set-up links work for 72 hours. Ask an admin to send you a new one.'
            : unknown
              ? 'It was used already, or replaced by a newer link. If you set up your account already, sign in. Otherwise ask an admin for a new link.'
              : errorMessage(error)}
        </p>
      </Alert>
      <SignInLink />
    </SetupFrame>
  );
}

function SignInLink() {
  return (
    <p className="setup__sign-in">
      <Link href="/sign-in">Go to sign-in</Link>
    </p>
  );
}

function DetailsStep({
  email,
  isPending,
  error,
  onSubmit,
}: {
  email: string;
  isPending: boolean;
  error: Error | null;
  onSubmit: (body: { name: string; password: string; password_confirmation: string }) => void;
}) {
  const fieldErrors = useFieldErrors(error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onSubmit({
      name: String(form.get('name') ?? ''),
      password: String(form.get('password') ?? ''),
      password_confirmation: String(form.get('password_confirmation') ?? ''),
    });
  };
  return (
    <Form className="setup__form" onSubmit={submit} validationErrors={fieldErrors}>
      <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
      <TextField
        name="name"
        label="Full name"
        autoComplete="name"
        isRequired
        errorMessage="Enter your name."
      />
      <TextField
        name="password"
        type="password"
        label="Password"
        autoComplete="new-password"
        isRequired
        minLength={8}
        description="At least 8 characters. Not a common password and not your e-mail address."
        errorMessage={({ validationDetails }) =>
          validationDetails.valueMissing ? 'Choose a password.' : 'Use at least 8 characters.'
        }
      />
      <TextField
        name="password_confirmation"
        type="password"
        label="Confirm password"
        autoComplete="new-password"
        isRequired
        errorMessage="Enter the password again."
      />
      {error && Object.keys(fieldErrors).length === 0 ? (
        <Alert tone="error">
          <p>{errorMessage(error)}</p>
        </Alert>
      ) : null}
      <Button type="submit" isPending={isPending}>
        Continue
      </Button>
    </Form>
  );
}

/**
 * A reset's first step: the operator's own password, so the link alone (which the admin who made
 * it holds too) does not give anyone this operator's account.
 */
function ResetStep({
  email,
  isPending,
  error,
  onSubmit,
}: {
  email: string;
  isPending: boolean;
  error: Error | null;
  onSubmit: (password: string) => void;
}) {
  const fieldErrors = useFieldErrors(error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit(String(new FormData(event.currentTarget).get('password') ?? ''));
  };
  return (
    <Form className="setup__form" onSubmit={submit} validationErrors={fieldErrors}>
      <p>
        An admin reset your second factor. Enter your password to confirm it is you, then set up your
        authenticator app again; the codes of your old one no longer work.
      </p>
      <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
      <TextField
        name="password"
        type="password"
        label="Your password"
        autoComplete="current-password"
        isRequired
        errorMessage={({ validationDetails, validationErrors }) =>
          validationErrors.length > 0
            ? validationErrors.join(' ')
            : validationDetails.valueMissing
              ? 'Enter your password.'
              : 'Check your password.'
        }
      />
      {error && Object.keys(fieldErrors).length === 0 ? (
        <Alert tone="error">
          <p>{errorMessage(error)}</p>
        </Alert>
      ) : null}
      <Button type="submit" isPending={isPending}>
        Continue
      </Button>
    </Form>
  );
}

function AuthenticatorStep({
  enrolment,
  email,
  isPending,
  error,
  onSubmit,
}: {
  enrolment: SecondFactorEnrolment;
  email: string;
  isPending: boolean;
  error: Error | null;
  onSubmit: (code: string) => void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit(String(new FormData(event.currentTarget).get('code') ?? '').replace(/\s/g, ''));
  };
  return (
    <div className="setup__authenticator">
      <h2>Connect your authenticator app</h2>
      <p>
        Scan this QR code with an authenticator app (such as 1Password, Google Authenticator or Microsoft
        Authenticator), or enter the key by hand.
      </p>
      <AuthenticatorKey secret={enrolment.secret} otpauthUrl={enrolment.otpauth_url} email={email} />
      <Form className="setup__form" onSubmit={submit}>
        <TextField
          name="code"
          label="6-digit code from the app"
          autoComplete="one-time-code"
          inputMode="numeric"
          isRequired
          pattern="[0-9 ]{6,7}"
          description="Enter the code the app shows now, to confirm it is set up."
          errorMessage={({ validationDetails }) =>
            validationDetails.valueMissing ? 'Enter the code from your app.' : 'The code has 6 digits.'
          }
        />
        {error ? (
          <Alert tone="error">
            <p>{errorMessage(error)}</p>
          </Alert>
        ) : null}
        <Button type="submit" isPending={isPending}>
          Confirm and sign in
        </Button>
      </Form>
    </div>
  );
}
