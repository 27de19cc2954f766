import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import { validationMessage } from '@/lib/validation-message';
import { useResendCode, useVerifyEmail } from '../api/account';
import { AuthCard, JourneySteps } from './auth-card';
import { codeErrorMessage, OtpField } from './otp-field';
import { ResendCode } from './resend-code';

export interface VerifyPageProps {
  /** The address just registered (from the sign-up page or the link in sign-in), if known. */
  email: string;
  /** Arrived straight from sign-up: the code was just sent. */
  justRegistered: boolean;
  onVerified: (email: string) => void;
}

/** The code from the registration e-mail, with a way to get a new one. */
export function VerifyPage({ email: knownEmail, justRegistered, onVerified }: VerifyPageProps) {
  const verify = useVerifyEmail();
  const resend = useResendCode();
  const [email, setEmail] = useState(knownEmail);
  const [code, setCode] = useState('');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    resend.reset();
    verify.mutate({ email: email.trim(), otp: code }, { onSuccess: (data) => onVerified(data.email) });
  };
  const alreadyVerified =
    verify.error instanceof ApiError && verify.error.errorCode === 'ACCOUNT_ALREADY_VERIFIED';

  return (
    <>
      <title>Verify your e-mail address · Partner dashboard</title>
      <HomeLayout
        heading="Verify your e-mail address"
        intro="One last step before you can sign in: confirm that the e-mail address is yours."
        primary={
          <AuthCard
            title="Enter your code"
            description={
              knownEmail
                ? `We sent a 6-digit code to ${knownEmail}.`
                : 'Enter your e-mail address and the 6-digit code we sent to it.'
            }
          >
            {justRegistered ? (
              <Alert tone="success" className="auth-card__notice">
                <p>Your account is created. Check your inbox for the code.</p>
              </Alert>
            ) : null}
            <Form className="auth-form" onSubmit={submit}>
              {knownEmail ? null : (
                <TextField
                  name="email"
                  type="email"
                  label="E-mail address"
                  autoComplete="email"
                  value={email}
                  onChange={setEmail}
                  isRequired
                  errorMessage={validationMessage(
                    'Enter your e-mail address.',
                    'Enter an e-mail address like name@example.com.',
                  )}
                />
              )}
              <OtpField value={code} onChange={setCode} />
              {verify.error ? (
                <Alert tone={alreadyVerified ? 'info' : 'error'}>
                  {alreadyVerified ? (
                    <p>
                      This account is already verified. <Link href="/sign-in">Sign in</Link>
                    </p>
                  ) : (
                    <p>{codeErrorMessage(verify.error) ?? errorMessage(verify.error)}</p>
                  )}
                </Alert>
              ) : null}
              <Button type="submit" isPending={verify.isPending}>
                {verify.isPending ? 'Verifying…' : 'Verify e-mail address'}
              </Button>
            </Form>
            <ResendCode
              email={email.trim()}
              isPending={resend.isPending}
              isSuccess={resend.isSuccess}
              error={resend.error}
              onResend={() => {
                verify.reset();
                resend.mutate({ email: email.trim() });
              }}
            />
            <div className="auth-card__links">
              <p>
                Already verified? <Link href="/sign-in">Sign in</Link>
              </p>
            </div>
          </AuthCard>
        }
        secondary={<JourneySteps />}
      />
    </>
  );
}
