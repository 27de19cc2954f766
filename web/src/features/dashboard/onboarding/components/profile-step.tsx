import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { SelectFormField } from '@/components/ui/select-form-field';
import { TextField } from '@/components/ui/text-field';
import { errorMessage } from '@/lib/api/api-error';
import type { BusinessType, OnboardingProfile } from '@/lib/api/partner-types';
import { BUSINESS_TYPE_LABELS } from '@/lib/onboarding-labels';
import { useAccess } from '@/lib/partner-roles';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { type ProfileChanges, useUpdateProfile } from '../api/profile';
import type { StepState } from '../steps';
import { StepCard } from './step-card';

const BUSINESS_TYPES = Object.entries(BUSINESS_TYPE_LABELS).map(([id, label]) => ({ id, label }));

const LABELS: Record<string, string> = {
  legal_business_name: 'Legal business name',
  business_type: 'Business type',
  rc_number: 'Registration number',
  address: 'Registered address',
  website: 'Website',
};

/**
 * A website as typed, with https:// in front when no scheme was given ("acme.ng" → "https://acme.ng"):
 * people type a bare domain, and the API takes https addresses only.
 */
export function withHttps(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^https?:/i.test(trimmed)) return trimmed;
  return `https://${trimmed.replace(/^\/+/, '')}`;
}

function websiteProblem(value: string): string | null {
  if (value.trim() === '') return null;
  const address = withHttps(value);
  if (!/^https:\/\//i.test(address)) return 'Enter an address starting with https://.';
  try {
    return new URL(address).hostname.includes('.') ? null : 'Enter a web address like https://acme.ng.';
  } catch {
    return 'Enter a web address like https://acme.ng.';
  }
}

/** Step 1: who the business legally is. The business type decides the document checklist. */
export function ProfileStep({ profile, state }: { profile: OnboardingProfile; state: StepState }) {
  const update = useUpdateProfile();
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const [website, setWebsite] = useState(profile.website ?? '');
  const status = profile.onboarding_status;
  const statusLocked = status === 'under_review' || status === 'rejected';
  // A role without onboarding rights reads the profile only (the page says why).
  const canEdit = useAccess('onboarding').allowed;
  const locked = statusLocked || !canEdit;
  // Once approved, the legal identity is settled; only contact details may change.
  const identityLocked = locked || status === 'active' || status === 'suspended';

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const changes: ProfileChanges = {};
    if (!identityLocked) {
      if (value('legal_business_name')) changes.legal_business_name = value('legal_business_name');
      if (value('business_type')) changes.business_type = value('business_type') as BusinessType;
      if (value('rc_number')) changes.rc_number = value('rc_number').toUpperCase();
    }
    if (value('address')) changes.address = value('address');
    if (website.trim()) {
      changes.website = withHttps(website);
      setWebsite(changes.website);
    }
    setServerErrors({});
    update.mutate(changes, {
      onError: (error) => {
        if (error instanceof ApiError) setServerErrors(fieldErrorSentences(error.errors, LABELS));
      },
    });
  };
  const otherError =
    update.error && !(update.error instanceof ApiError && Object.keys(update.error.errors).length > 0);

  return (
    <StepCard
      id="business-profile"
      number={1}
      title="Business profile"
      state={state}
      description="Your business as registered with the Corporate Affairs Commission (CAC). The business type decides which documents we need."
    >
      {statusLocked ? (
        <Alert tone="info">
          <p>The profile cannot change while the application is under review or after it was rejected.</p>
        </Alert>
      ) : identityLocked && canEdit ? (
        <Alert tone="info">
          <p>Your application is approved: only the address and website can change now.</p>
        </Alert>
      ) : null}
      <Form className="onboarding-form" onSubmit={submit} validationErrors={serverErrors}>
        <div className="form-grid">
          <TextField
            name="legal_business_name"
            label={LABELS['legal_business_name']!}
            defaultValue={profile.legal_business_name}
            description="As on your certificate of incorporation."
            maxLength={191}
            isRequired
            isDisabled={identityLocked}
            errorMessage={validationMessage('Enter the legal name of the business.')}
          />
          <SelectFormField
            name="business_type"
            label={LABELS['business_type']!}
            options={BUSINESS_TYPES}
            defaultValue={profile.business_type}
            isRequired
            isDisabled={identityLocked}
            errorMessage={validationMessage('Choose the type of business.')}
          />
          <TextField
            name="rc_number"
            label={LABELS['rc_number']!}
            defaultValue={profile.rc_number ?? ''}
            description="RC, BN or IT followed by up to 8 digits, e.g. RC1234567."
            pattern="(RC|BN|IT|rc|bn|it)[0-9]{1,8}"
            maxLength={10}
            isRequired
            isDisabled={identityLocked}
            errorMessage={validationMessage(
              'Enter the CAC registration number.',
              'Use RC, BN or IT followed by up to 8 digits.',
            )}
          />
          <TextField
            name="website"
            inputMode="url"
            autoComplete="url"
            label={`${LABELS['website']} (optional)`}
            description="https:// is added when you leave it out."
            value={website}
            onChange={setWebsite}
            onBlur={() => setWebsite((now) => withHttps(now))}
            placeholder="https://acme.ng"
            maxLength={2048}
            isDisabled={locked}
            validate={websiteProblem}
          />
          <div className="form-grid__wide">
            <TextField
              name="address"
              label={LABELS['address']!}
              defaultValue={profile.address ?? ''}
              autoComplete="street-address"
              maxLength={255}
              isRequired
              isDisabled={locked}
              errorMessage={validationMessage('Enter the registered address.')}
            />
          </div>
        </div>
        {otherError ? (
          <Alert tone="error">
            <p>{errorMessage(update.error)}</p>
          </Alert>
        ) : null}
        <div className="form-actions">
          {canEdit ? (
            <Button type="submit" isPending={update.isPending} isDisabled={locked}>
              {update.isPending ? 'Saving…' : 'Save business profile'}
            </Button>
          ) : null}
          <span role="status" className="onboarding-form__saved">
            {update.isSuccess ? 'Business profile saved.' : ''}
          </span>
        </div>
      </Form>
    </StepCard>
  );
}
