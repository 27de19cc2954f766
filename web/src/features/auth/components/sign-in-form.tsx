import { type FormEvent, useId, useState } from 'react';
import { Form } from 'react-aria-components';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { TextField } from '@/components/ui/text-field';
import './sign-in-form.css';

export interface SignInFormProps {
  /** Who signs in here, for the card's heading: "Operator sign-in". */
  title: string;
  description: string;
}

/**
 * E-mail and password, validated by the browser's constraint API and shown by React Aria (errors
 * are announced and the first invalid field takes focus). Browser sessions are not served yet, so a
 * valid submission only says so; the request goes here when they are.
 */
export function SignInForm({ title, description }: SignInFormProps) {
  const headingId = useId();
  const [status, setStatus] = useState('');

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '');
    setStatus(`Signing in from the browser is not available yet, so ${email} was not signed in.`);
  };

  return (
    <Card labelledBy={headingId} className="sign-in">
      <h2 id={headingId}>{title}</h2>
      <p className="sign-in__description">{description}</p>
      <Form className="sign-in__form" onSubmit={onSubmit}>
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
        <Button type="submit">Sign in</Button>
      </Form>
      {/* Present from the start, so screen readers announce the message when it appears. */}
      <p className="sign-in__status" role="status">
        {status}
      </p>
    </Card>
  );
}
