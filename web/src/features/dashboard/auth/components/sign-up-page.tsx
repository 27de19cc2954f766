import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form, Link } from 'react-aria-components';
import { HomeLayout } from '@/components/layout/home-layout';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { type Registration, useRegister } from '../api/account';
import { AuthCard, JourneySteps } from './auth-card';
import { NewPasswordFields } from './new-password-fields';

const LABELS: Record<keyof Registration, string> = {
  business_name: 'Business name',
  email: 'E-mail address',
  phone: 'Phone number',
  password: 'Password',
  password_confirmation: 'Password confirmation',
};

/**
 * Registration: the API's field errors (a taken e-mail, a common password) show next to their
 * fields; on success the partner goes on to enter the e-mailed code.
 */
export function SignUpPage({ onRegistered }: { onRegistered: (email: string) => void }) {
  const register = useRegister();
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body: Registration = {
      business_name: String(form.get('business_name') ?? '').trim(),
      email: String(form.get('email') ?? '').trim(),
      phone: String(form.get('phone') ?? '').trim(),
      password: String(form.get('password') ?? ''),
      password_confirmation: String(form.get('password_confirmation') ?? ''),
    };
    setServerErrors({});
    register.mutate(body, {
      onSuccess: (data) => onRegistered(data.email),
      onError: (error) => {
        if (error instanceof ApiError) setServerErrors(fieldErrorSentences(error.errors, LABELS));
      },
    });
  };
  const otherError =
    register.error && !(register.error instanceof ApiError && Object.keys(register.error.errors).length > 0);

  return (
    <>
      <title>Create your partner account · Partner dashboard</title>
      <HomeLayout
        heading="Create your partner account"
        intro="Start in the sandbox right away: no documents are needed until you are ready to go live."
        primary={
          <AuthCard title="Your business" description="All fields are required.">
            <Form className="auth-form" onSubmit={submit} validationErrors={serverErrors}>
              <TextField
                name="business_name"
                label={LABELS.business_name}
                autoComplete="organization"
                maxLength={191}
                isRequired
                errorMessage={validationMessage('Enter the name of your business.')}
              />
              <TextField
                name="email"
                type="email"
                label={LABELS.email}
                autoComplete="email"
                description="You will sign in with it; we send a verification code there."
                isRequired
                errorMessage={validationMessage(
                  'Enter your e-mail address.',
                  'Enter an e-mail address like name@example.com.',
                )}
              />
              <TextField
                name="phone"
                type="tel"
                label={LABELS.phone}
                autoComplete="tel"
                placeholder="+234 803 123 4567"
                minLength={7}
                maxLength={20}
                pattern="[0-9+\(\) \-]+"
                isRequired
                errorMessage={validationMessage(
                  'Enter a phone number.',
                  'Enter a phone number such as 0803 123 4567, or +44 20 7946 0958 abroad.',
                )}
              />
              <NewPasswordFields />
              {otherError ? (
                <Alert tone="error">
                  <p>{errorMessage(register.error)}</p>
                </Alert>
              ) : null}
              <Button type="submit" isPending={register.isPending}>
                {register.isPending ? 'Creating your account…' : 'Create account'}
              </Button>
            </Form>
            <div className="auth-card__links">
              <p>
                Already registered? <Link href="/sign-in">Sign in</Link>
              </p>
            </div>
          </AuthCard>
        }
        secondary={<JourneySteps />}
      />
    </>
  );
}
