import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { useForgotPassword, useResetPassword } from '../api/account';
import { AuthCard, JourneySteps } from './auth-card';
import { codeErrorMessage, OtpField } from './otp-field';
import { ResendCode } from './resend-code';

const LABELS = {
  email: 'E-mail address',
  otp: 'Code',
  password: 'New password',
  password_confirmation: 'Confirmation',
};

/** Step two: the e-mailed code and the new password. */
export function ResetPasswordPage({ email: knownEmail, onReset }: { email: string; onReset: () => void }) {
  const reset = useResetPassword();
  const resend = useForgotPassword();
  const [email, setEmail] = useState(knownEmail);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setServerErrors({});
    resend.reset();
    reset.mutate(
      {
        email: email.trim(),
        otp: code,
        password,
        password_confirmation: String(form.get('password_confirmation') ?? ''),
      },
      {
        onSuccess: onReset,
        onError: (error) => {
          if (error instanceof ApiError) setServerErrors(fieldErrorSentences(error.errors, LABELS));
        },
      },
    );
  };
  const fieldErrors = reset.error instanceof ApiError && Object.keys(reset.error.errors).length > 0;

  return (
    <>
      <title>Choose a new password · Partner dashboard</title>
      <HomeLayout
        heading="Choose a new password"
        intro="Enter the code from the e-mail we just sent, and your new password."
        primary={
          <AuthCard
            title="Set a new password"
            description={
              knownEmail ? `If ${knownEmail} has an account, a 6-digit code is on its way to it.` : undefined
            }
          >
            <Form className="auth-form" onSubmit={submit} validationErrors={serverErrors}>
              {knownEmail ? null : (
                <TextField
                  name="email"
                  type="email"
                  label="E-mail address"
                  autoComplete="username"
                  value={email}
                  onChange={setEmail}
                  isRequired
                  errorMessage={validationMessage('Enter your e-mail address.')}
                />
              )}
              <OtpField value={code} onChange={setCode} />
              <TextField
                name="password"
                type="password"
                label="New password"
                autoComplete="new-password"
                description="At least 8 characters. Common passwords are refused."
                minLength={8}
                maxLength={128}
                value={password}
                onChange={setPassword}
                isRequired
                errorMessage={validationMessage('Choose a new password.', 'Use at least 8 characters.')}
              />
              <TextField
                name="password_confirmation"
                type="password"
                label="Confirm new password"
                autoComplete="new-password"
                isRequired
                validate={(value) => (value && value !== password ? 'The passwords do not match.' : null)}
                errorMessage={validationMessage('Enter the new password again.')}
              />
              {reset.error && !fieldErrors ? (
                <Alert tone="error">
                  <p>{codeErrorMessage(reset.error) ?? errorMessage(reset.error)}</p>
                </Alert>
              ) : null}
              <Button type="submit" isPending={reset.isPending}>
                {reset.isPending ? 'Saving…' : 'Set new password'}
              </Button>
            </Form>
            <ResendCode
              email={email.trim()}
              isPending={resend.isPending}
              isSuccess={resend.isSuccess}
              error={resend.error}
              onResend={() => {
                reset.reset();
                resend.mutate({ email: email.trim() });
              }}
            />
            <div className="auth-card__links">
              <p>
                <Link href="/sign-in">Back to sign-in</Link>
              </p>
            </div>
          </AuthCard>
        }
        secondary={<JourneySteps />}
      />
    </>
  );
}
