import { ApiError } from '@baas/sdk';
import { useState } from 'react';
import { Alert, FieldErrorList } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { errorMessage } from '@/lib/api/api-error';
import type { OnboardingProfile } from '@/lib/api/partner-types';
import { requirementLabel } from '@/lib/onboarding-labels';
import { useAccess } from '@/lib/partner-roles';
import { useSubmitApplication } from '../api/profile';
import type { StepState } from '../steps';
import { StepCard } from './step-card';

/** Step 4: send the application to the compliance team once nothing else is due. */
export function SubmitStep({ profile, state }: { profile: OnboardingProfile; state: StepState }) {
  const submit = useSubmitApplication();
  const [confirming, setConfirming] = useState(false);
  const { currently_due: due, pending_review: waiting } = profile.requirements;
  const outstanding = due.filter((item) => item !== 'submit');
  const status = profile.onboarding_status;
  const canSubmit = useAccess('onboarding').allowed;

  return (
    <StepCard
      id="submit"
      number={4}
      title="Submit for review"
      state={state}
      stateLabels={{
        done: 'Approved',
        waiting: 'Under review',
        attention: 'Rejected',
        todo: 'Not submitted',
      }}
      description="Our compliance team reviews your profile, representative and documents, usually within two business days."
    >
      {status === 'in_progress' ? (
        <>
          {outstanding.length > 0 ? (
            <div className="submit-step__due">
              <p>Before you can submit, complete:</p>
              <ul>
                {outstanding.map((item) => (
                  <li key={item}>{requirementLabel(item)}</li>
                ))}
              </ul>
            </div>
          ) : (
            <p>Everything is in place. Submit your application when you are ready.</p>
          )}
          {submit.error ? (
            <Alert tone="error" title="The application was not submitted.">
              <p>{errorMessage(submit.error)}</p>
              {submit.error instanceof ApiError ? (
                <FieldErrorList errors={submit.error.errors} label={requirementLabel} />
              ) : null}
            </Alert>
          ) : null}
          {canSubmit ? (
            <Button
              isDisabled={!due.includes('submit')}
              isPending={submit.isPending}
              onPress={() => setConfirming(true)}
            >
              {submit.isPending ? 'Submitting…' : 'Submit application'}
            </Button>
          ) : null}
          <ConfirmDialog
            title="Submit your application?"
            isOpen={confirming}
            onOpenChange={setConfirming}
            confirmLabel="Submit application"
            pendingLabel="Submitting…"
            tone="primary"
            isPending={submit.isPending}
            onConfirm={() => submit.mutate(undefined, { onSettled: () => setConfirming(false) })}
          >
            <p>
              Our compliance team reviews your profile, representative and documents. Until they decide you
              cannot change them: check them first.
            </p>
          </ConfirmDialog>
        </>
      ) : status === 'under_review' ? (
        <Alert tone="info" title="Your application is under review.">
          <p>
            This page shows the decision when it is made, and your webhook endpoint receives an
            onboarding.status_changed event.
          </p>
          {waiting.length > 0 ? <p>Waiting for review: {waiting.map(requirementLabel).join(', ')}.</p> : null}
        </Alert>
      ) : status === 'active' ? (
        <Alert tone="success" title="Your application is approved.">
          <p>Switch to live mode at the top of the page to create live API keys and issue real accounts.</p>
          {waiting.length > 0 ? (
            <p>Changes waiting for review: {waiting.map(requirementLabel).join(', ')}.</p>
          ) : null}
        </Alert>
      ) : status === 'suspended' ? (
        <Alert tone="warning" title="Your live access is suspended.">
          <p>The sandbox keeps working. Contact us to resolve the suspension.</p>
        </Alert>
      ) : (
        <Alert tone="error" title="Your application was rejected.">
          <p>This decision is final. The sandbox keeps working.</p>
        </Alert>
      )}
    </StepCard>
  );
}
