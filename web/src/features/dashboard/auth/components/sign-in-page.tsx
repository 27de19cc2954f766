import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/text-field';
import { describeWait, errorMessage, retryAfterSeconds } from '@/lib/api/api-error';
import { validationMessage } from '@/lib/validation-message';
import { useSignIn, useSignInSecondFactor } from '../api/session';
import { AuthCard, JourneySteps } from './auth-card';

export type SignInNotice = 'session-ended' | 'signed-out' | 'verified' | 'password-reset';

const NOTICES: Record<SignInNotice, { tone: 'warning' | 'success'; text: string }> = {
  'session-ended': {
    tone: 'warning',
    text: 'Your session ended, so you were signed out. Sign in again to continue where you were.',
  },
  'signed-out': { tone: 'success', text: 'You have signed out.' },
  verified: { tone: 'success', text: 'Your e-mail address is verified. Sign in to continue.' },
  'password-reset': {
    tone: 'success',
    text: 'Your password has been changed and every other session signed out. Sign in with the new password.',
  },
};

export interface SignInPageProps {
  notice?: SignInNotice | undefined;
  defaultEmail?: string | undefined;
  onSignedIn: () => void;
}

/** E-mail and password; an unverified account is pointed to verification, a lock-out names the wait. */
export function SignInPage({ notice, defaultEmail, onSignedIn }: SignInPageProps) {
  const signIn = useSignIn();
  const [email, setEmail] = useState(defaultEmail ?? '');
  const [challengeToken, setChallengeToken] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate(
      { email: email.trim(), password: String(form.get('password') ?? '') },
      {
        onSuccess: (answer) => {
          if (answer.challengeToken !== undefined) setChallengeToken(answer.challengeToken);
          else onSignedIn();
        },
      },
    );
  };

  if (challengeToken !== null) {
    return (
      <SecondFactorStep
        challengeToken={challengeToken}
        onSignedIn={onSignedIn}
        onRestart={() => {
          signIn.reset();
          setChallengeToken(null);
        }}
      />
    );
  }

  return (
    <>
      <title>Sign in · Partner dashboard</title>
      <HomeLayout
        heading="Partner dashboard"
        intro="Onboard your business, manage API keys and webhooks, and issue virtual accounts to your customers, in the sandbox and live."
        primary={
          <AuthCard title="Sign in" description="Use the e-mail address you registered with.">
            {notice && !signIn.error ? (
              <Alert tone={NOTICES[notice].tone} className="auth-card__notice">
                <p>{NOTICES[notice].text}</p>
              </Alert>
            ) : null}
            <Form className="auth-form" onSubmit={submit}>
              <TextField
                name="email"
                type="email"
                label="E-mail address"
                autoComplete="username"
                value={email}
                onChange={setEmail}
                isRequired
                errorMessage={validationMessage(
                  'Enter your e-mail address.',
                  'Enter an e-mail address like name@example.com.',
                )}
              />
              <TextField
                name="password"
                type="password"
                label="Password"
                autoComplete="current-password"
                isRequired
                errorMessage="Enter your password."
              />
              {signIn.error ? <SignInError error={signIn.error} email={email.trim()} /> : null}
              <Button type="submit" isPending={signIn.isPending}>
                {signIn.isPending ? 'Signing in…' : 'Sign in'}
              </Button>
            </Form>
            <div className="auth-card__links">
              <p>
                <Link href="/forgot-password">Forgot your password?</Link>
              </p>
              <p>
                New here? <Link href="/sign-up">Create an account</Link>
              </p>
            </div>
          </AuthCard>
        }
        secondary={<JourneySteps />}
      />
    </>
  );
}

/** The code step of a login whose user has a second factor. */
function SecondFactorStep({
  challengeToken,
  onSignedIn,
  onRestart,
}: {
  challengeToken: string;
  onSignedIn: () => void;
  onRestart: () => void;
}) {
  const step = useSignInSecondFactor();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    step.mutate({ challengeToken, code: String(form.get('code') ?? '') }, { onSuccess: onSignedIn });
  };
  // A used-up or expired challenge needs the password again.
  const restart =
    step.error instanceof ApiError &&
    ['SIGN_IN_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED', 'FORBIDDEN'].includes(step.error.errorCode ?? '');
  return (
    <>
      <title>Second factor · Partner dashboard</title>
      <HomeLayout
        heading="Partner dashboard"
        intro="Your account has a second factor."
        primary={
          <AuthCard
            title="Enter your code"
            description="Open your authenticator app and enter the 6-digit code for BaaS Dashboard, or one of your recovery codes."
          >
            <Form className="auth-form" onSubmit={submit}>
              <TextField
                name="code"
                label="Authentication code"
                autoComplete="one-time-code"
                isRequired
                autoFocus
                errorMessage="Enter the code from your authenticator app."
              />
              {step.error ? (
                <Alert tone="error">
                  <p>{errorMessage(step.error)}</p>
                </Alert>
              ) : null}
              {restart ? (
                <Button variant="secondary" onPress={onRestart}>
                  Sign in again
                </Button>
              ) : (
                <Button type="submit" isPending={step.isPending}>
                  {step.isPending ? 'Checking…' : 'Continue'}
                </Button>
              )}
            </Form>
          </AuthCard>
        }
        secondary={<JourneySteps />}
      />
    </>
  );
}

function SignInError({ error, email }: { error: Error; email: string }) {
  if (error instanceof ApiError && error.errorCode === 'ACCOUNT_NOT_VERIFIED') {
    return (
      <Alert tone="warning" title="Your e-mail address is not verified yet.">
        <p>
          Enter the 6-digit code we e-mailed to you.{' '}
          <Link href={`/verify?email=${encodeURIComponent(email)}`}>Verify your e-mail address</Link>
        </p>
      </Alert>
    );
  }
  if (error instanceof ApiError && error.errorCode === 'RATE_LIMITED') {
    const seconds = retryAfterSeconds(error);
    const wait = seconds === null ? 'a while' : describeWait(seconds);
    return (
      <Alert tone="error">
        <p>Too many sign-in attempts for this account. Wait {wait}, then try again.</p>
      </Alert>
    );
  }
  return (
    <Alert tone="error">
      <p>{errorMessage(error)}</p>
    </Alert>
  );
}
