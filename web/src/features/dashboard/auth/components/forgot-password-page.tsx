import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/text-field';
import { describeWait, errorMessage, retryAfterSeconds } from '@/lib/api/api-error';
import { validationMessage } from '@/lib/validation-message';
import { useForgotPassword } from '../api/account';
import { AuthCard, JourneySteps } from './auth-card';

/** Step one of a reset: the e-mail address a code goes to (the answer never says whether it exists). */
export function ForgotPasswordPage({ onCodeSent }: { onCodeSent: (email: string) => void }) {
  const forgot = useForgotPassword();
  const [email, setEmail] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const address = email.trim();
    forgot.mutate({ email: address }, { onSuccess: () => onCodeSent(address) });
  };
  return (
    <>
      <title>Reset your password · Partner dashboard</title>
      <HomeLayout
        heading="Reset your password"
        intro="We e-mail you a 6-digit code; with it you choose a new password. Every session of your account is then signed out."
        primary={
          <AuthCard title="Forgot your password?" description="Enter the e-mail address you registered with.">
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
              {forgot.error ? (
                <Alert tone="error">
                  <p>
                    {forgot.error instanceof ApiError && forgot.error.errorCode === 'RATE_LIMITED'
                      ? `A code was sent a moment ago. Try again in ${describeWait(retryAfterSeconds(forgot.error) ?? 60)}.`
                      : errorMessage(forgot.error)}
                  </p>
                </Alert>
              ) : null}
              <Button type="submit" isPending={forgot.isPending}>
                {forgot.isPending ? 'Sending…' : 'Send reset code'}
              </Button>
            </Form>
            <div className="auth-card__links">
              <p>
                Remembered it? <Link href="/sign-in">Sign in</Link>
              </p>
            </div>
          </AuthCard>
        }
        secondary={<JourneySteps />}
      />
    </>
  );
}
