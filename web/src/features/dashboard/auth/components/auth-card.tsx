import { type ReactNode, useId } from 'react';
import { Card } from '@/components/ui/card';
import './auth.css';

/** The card every account page is built on: its heading, a line on what it is for, then its form. */
export function AuthCard({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <Card labelledBy={headingId} className="auth-card">
      <h2 id={headingId}>{title}</h2>
      {description ? <p className="auth-card__description">{description}</p> : null}
      {children}
    </Card>
  );
}

/** The partner journey in four steps, beside the sign-in and sign-up forms. */
export function JourneySteps() {
  const headingId = useId();
  return (
    <Card labelledBy={headingId}>
      <h2 id={headingId}>From sandbox to live</h2>
      <ol className="auth-steps">
        <li>
          <div>
            <strong>Create and verify your account</strong>
            <span>Register your business and confirm your e-mail address with the code we send.</span>
          </div>
        </li>
        <li>
          <div>
            <strong>Build in the sandbox</strong>
            <span>
              Create API keys, set a webhook endpoint and issue test accounts with simulated credits.
            </span>
          </div>
        </li>
        <li>
          <div>
            <strong>Complete onboarding</strong>
            <span>Business profile, compliance representative with KYC, and your company documents.</span>
          </div>
        </li>
        <li>
          <div>
            <strong>Go live</strong>
            <span>Once our compliance team approves you, switch to live and issue real accounts.</span>
          </div>
        </li>
      </ol>
    </Card>
  );
}
