import { ApiError, type ErrorCode } from '@baas/sdk';
import { type FormEvent, useId, useState } from 'react';
import { Form } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { TextField } from '@/components/ui/text-field';
import { describeWait, errorMessage, retryAfterSeconds } from '@/lib/api/api-error';
import { useFinishSignIn, useStartSignIn } from '../api/session';
import './sign-in.css';

export type SignInNotice = 'session-ended' | 'signed-out';

export interface SignInPageProps {
  /** Why the operator is here: their session ended, or they signed out. */
  notice?: SignInNotice | undefined;
  onSignedIn: () => void;
}

const NOTICES: Record<SignInNotice, { tone: 'warning' | 'success'; text: string }> = {
  'session-ended': {
    tone: 'warning',
    text: 'Your session ended, so you were signed out. Sign in again to continue where you were.',
  },
  'signed-out': { tone: 'success', text: 'You have signed out.' },
};

/** What a failed step says: the server's own words, except for a lock-out, which names the wait. */
function signInError(error: unknown): string {
  if (error instanceof ApiError && error.errorCode === 'RATE_LIMITED') {
    const seconds = retryAfterSeconds(error);
    const wait = seconds === null ? 'a while' : describeWait(seconds);
    return `Too many sign-in attempts for this account. Wait ${wait}, then try again.`;
  }
  return errorMessage(error);
}

/** Errors of step two after which the challenge is dead: the operator starts again with the password. */
const RESTART_CODES = new Set<ErrorCode | null>(['SIGN_IN_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED', 'FORBIDDEN']);

/**
 * Sign-in in two steps: e-mail and password, then the authenticator's 6-digit code or a recovery
 * code. A wrong code keeps the operator on step two; an expired or used-up challenge goes back to
 * step one with the reason.
 */
export function SignInPage({ notice, onSignedIn }: SignInPageProps) {
  const [challenge, setChallenge] = useState<{ value: string; email: string } | null>(null);
  const [restartReason, setRestartReason] = useState<string | null>(null);
  const start = useStartSignIn();
  const finish = useFinishSignIn();

  return (
    <HomeLayout
      heading="Operator console"
      intro="Review partner applications, decide on their documents, and keep an auditable record of every decision."
      primary={
        challenge ? (
          <SecondFactorStep
            email={challenge.email}
            isPending={finish.isPending}
            error={finish.error}
            onSubmit={(code) =>
              finish.mutate(
                { challenge: challenge.value, code },
                {
                  onSuccess: onSignedIn,
                  onError: (error) => {
                    if (error instanceof ApiError && RESTART_CODES.has(error.errorCode)) {
                      setRestartReason(error.message);
                      setChallenge(null);
                      finish.reset();
                    }
                  },
                },
              )
            }
            onRestart={() => {
              setRestartReason(null);
              setChallenge(null);
              finish.reset();
            }}
          />
        ) : (
          <PasswordStep
            notice={restartReason === null && !start.error ? notice : undefined}
            error={start.error ? signInError(start.error) : restartReason}
            isPending={start.isPending}
            onSubmit={(email, password) => {
              setRestartReason(null);
              start.mutate(
                { email, password },
                {
                  onSuccess: (answer) => {
                    start.reset();
                    setChallenge({ value: answer.challenge, email });
                  },
                },
              );
            }}
          />
        )
      }
      secondary={<SignInHelp />}
    />
  );
}

function PasswordStep({
  notice,
  error,
  isPending,
  onSubmit,
}: {
  notice: SignInNotice | undefined;
  error: string | null;
  isPending: boolean;
  onSubmit: (email: string, password: string) => void;
}) {
  const headingId = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onSubmit(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
  };
  return (
    <Card labelledBy={headingId} className="sign-in">
      <title>Sign in · Operator console</title>
      <h2 id={headingId}>Sign in</h2>
      <p className="sign-in__description">
        Use your operator account. A code from your authenticator app will be asked next.
      </p>
      {notice ? (
        <Alert tone={NOTICES[notice].tone} className="sign-in__notice">
          <p>{NOTICES[notice].text}</p>
        </Alert>
      ) : null}
      <Form className="sign-in__form" onSubmit={submit}>
        <TextField
          name="email"
          type="email"
          label="E-mail address"
          autoComplete="username"
          isRequired
          errorMessage={({ validationDetails }) =>
            validationDetails.valueMissing
              ? 'Enter your e-mail address.'
              : 'Enter an e-mail address like name@example.com.'
          }
        />
        <TextField
          name="password"
          type="password"
          label="Password"
          autoComplete="current-password"
          isRequired
          errorMessage="Enter your password."
        />
        {error ? (
          <Alert tone="error">
            <p>{error}</p>
          </Alert>
        ) : null}
        <Button type="submit" isPending={isPending}>
          {isPending ? 'Signing in…' : 'Sign in'}
        </Button>
      </Form>
    </Card>
  );
}

function SecondFactorStep({
  email,
  isPending,
  error,
  onSubmit,
  onRestart,
}: {
  email: string;
  isPending: boolean;
  error: Error | null;
  onSubmit: (code: string) => void;
  onRestart: () => void;
}) {
  const headingId = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSubmit(String(new FormData(event.currentTarget).get('code') ?? '').trim());
  };
  return (
    <Card labelledBy={headingId} className="sign-in">
      <title>Enter your code · Operator console</title>
      <h2 id={headingId}>Enter your code</h2>
      <p className="sign-in__description">
        Open your authenticator app and enter the current 6-digit code for <strong>{email}</strong>.
      </p>
      <Form className="sign-in__form" onSubmit={submit}>
        <TextField
          name="code"
          label="Authentication code"
          autoComplete="one-time-code"
          autoFocus
          isRequired
          description="Lost your authenticator? Enter one of your recovery codes instead."
          errorMessage="Enter the code from your authenticator app, or a recovery code."
          spellCheck="false"
        />
        {error ? (
          <Alert tone="error">
            <p>{signInError(error)}</p>
          </Alert>
        ) : null}
        <Button type="submit" isPending={isPending}>
          {isPending ? 'Verifying…' : 'Verify and sign in'}
        </Button>
        <Button type="button" variant="quiet" onPress={onRestart}>
          Use another account
        </Button>
      </Form>
    </Card>
  );
}

function SignInHelp() {
  const headingId = useId();
  return (
    <Card labelledBy={headingId} className="sign-in-help">
      <h2 id={headingId}>About signing in</h2>
      <ul className="sign-in-help__list">
        <li>
          <strong>Two steps.</strong> Your password, then a one-time code from the authenticator app you set
          up with your invitation.
        </li>
        <li>
          <strong>Lost your authenticator?</strong> Use one of the recovery codes you saved, or ask an admin
          to reset your second factor.
        </li>
        <li>
          <strong>Sessions end</strong> after 30 minutes without activity, and after 8 hours at most.
        </li>
        <li>
          <strong>New here?</strong> Open the set-up link an admin gave you. Each link works once.
        </li>
      </ul>
    </Card>
  );
}
