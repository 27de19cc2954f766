import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { RadioGroupField } from '@/components/ui/radio-group-field';
import { SelectFormField } from '@/components/ui/select-form-field';
import { TextField } from '@/components/ui/text-field';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { OnboardingProfile, RepresentativeResult } from '@/lib/api/partner-types';
import {
  DESIGNATION_OPTIONS,
  GENDER_OPTIONS,
  ID_TYPE_OPTIONS,
  PERSON_FIELD_LABELS,
} from '@/lib/person-labels';
import { fieldErrorSentences, validationMessage } from '@/lib/validation-message';
import { type RepresentativeFields, useSaveRepresentative } from '../api/uploads';
import { canChangeOnboarding, type StepState } from '../steps';
import { DocumentSourceField, type SourceMode } from './document-source-field';
import { StepCard } from './step-card';

const FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'dob',
  'gender',
  'designation',
  'bvn',
  'id_type',
  'address',
] as const;

/**
 * Step 2: the person who answers for compliance, checked against the BVN registry (KYC) as soon as
 * they are saved. The result is explained: what passed, or what to correct.
 */
export function RepresentativeStep({ profile, state }: { profile: OnboardingProfile; state: StepState }) {
  const save = useSaveRepresentative();
  const representative = profile.representative;
  const kycError = profile.requirements.errors.find((error) => error.requirement === 'representative.kyc');
  const [editing, setEditing] = useState(representative === null);
  const [result, setResult] = useState<RepresentativeResult | null>(null);
  const canChange = canChangeOnboarding(profile);

  return (
    <StepCard
      id="representative"
      number={2}
      title="Compliance representative"
      state={state}
      stateLabels={{ attention: 'KYC not passed' }}
      description="A director or officer who answers for compliance. We verify their identity with their BVN when you save."
    >
      {result ? <KycResult result={result} /> : null}
      {representative && !editing ? (
        <div className="representative-summary">
          <p>
            <strong>
              <UserText>{`${representative.first_name} ${representative.last_name}`}</UserText>
            </strong>{' '}
            <span className="muted">
              (<UserText>{representative.email}</UserText>)
            </span>
          </p>
          {!result ? (
            kycError ? (
              <Alert tone="error" title="The identity check did not pass.">
                <p>
                  <UserText>{kycError.reason}</UserText>
                </p>
                <p>Correct the BVN or the name and save the representative again.</p>
              </Alert>
            ) : (
              <Alert tone="success">
                <p>Identity check passed: the BVN matches this person.</p>
              </Alert>
            )
          ) : null}
          {canChange ? (
            <Button variant="secondary" size="small" onPress={() => setEditing(true)}>
              Update representative
            </Button>
          ) : null}
        </div>
      ) : null}
      {!canChange && !representative ? (
        <Alert tone="info">
          <p>
            The representative cannot change while the application is under review or after it was rejected.
          </p>
        </Alert>
      ) : null}
      {editing && canChange ? (
        <RepresentativeForm
          save={save}
          canCancel={representative !== null}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            setResult(saved);
            setEditing(!saved.kyc.ok);
          }}
        />
      ) : null}
    </StepCard>
  );
}

function KycResult({ result }: { result: RepresentativeResult }) {
  const name = visibleControls(`${result.representative.first_name} ${result.representative.last_name}`);
  return result.kyc.ok ? (
    <Alert tone="success" title={`${name} is saved and their identity check passed.`}>
      <p>
        <UserText>{result.kyc.message}</UserText> Their ID document now waits for our review with your other
        documents.
      </p>
    </Alert>
  ) : (
    <Alert tone="error" title={`${name} is saved, but the identity check did not pass.`}>
      <p>
        <UserText>{result.kyc.message}</UserText>
      </p>
      <p>
        Check that the BVN is the representative's own (11 digits) and that the name matches their bank
        records, then save again. You cannot submit your application until the check passes.
      </p>
    </Alert>
  );
}

function RepresentativeForm({
  save,
  canCancel,
  onCancel,
  onSaved,
}: {
  save: ReturnType<typeof useSaveRepresentative>;
  canCancel: boolean;
  onCancel: () => void;
  onSaved: (result: RepresentativeResult) => void;
}) {
  const [mode, setMode] = useState<SourceMode>('file');
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (mode === 'file' && !file) {
      setFileError('Choose the ID document to upload, or give a link to it.');
      return;
    }
    const fields = Object.fromEntries(
      FIELDS.map((name) => [name, String(form.get(name) ?? '').trim()]),
    ) as unknown as RepresentativeFields;
    setFileError(null);
    setServerErrors({});
    setProgress(0);
    save.mutate(
      {
        fields,
        id: mode === 'file' && file ? { file } : { url: String(form.get('id_file_url') ?? '').trim() },
        onProgress: setProgress,
      },
      {
        onSuccess: onSaved,
        onError: (error) => {
          if (!(error instanceof ApiError)) return;
          const { id_file: idFile, ...rest } = fieldErrorSentences(error.errors, PERSON_FIELD_LABELS);
          setServerErrors(rest);
          if (idFile) setFileError(idFile.join(' '));
        },
        onSettled: () => setProgress(null),
      },
    );
  };
  const otherError =
    save.error && !(save.error instanceof ApiError && Object.keys(save.error.errors).length > 0);

  return (
    <Form className="onboarding-form" onSubmit={submit} validationErrors={serverErrors}>
      <div className="form-grid">
        <TextField
          name="first_name"
          label="First name"
          autoComplete="off"
          maxLength={100}
          isRequired
          errorMessage={validationMessage('Enter the first name.')}
        />
        <TextField
          name="last_name"
          label="Last name"
          autoComplete="off"
          maxLength={100}
          isRequired
          errorMessage={validationMessage('Enter the last name.')}
        />
        <TextField
          name="email"
          type="email"
          label="E-mail address"
          autoComplete="off"
          isRequired
          errorMessage={validationMessage(
            'Enter their e-mail address.',
            'Enter an e-mail address like name@example.com.',
          )}
        />
        <TextField
          name="phone"
          type="tel"
          label="Phone number"
          autoComplete="off"
          minLength={7}
          maxLength={20}
          pattern="[0-9+\(\) \-]+"
          isRequired
          errorMessage={validationMessage(
            'Enter their phone number.',
            'Enter 7 to 20 digits; spaces, +, -, ( and ) are allowed.',
          )}
        />
        <TextField
          name="dob"
          type="date"
          label="Date of birth"
          isRequired
          description="They must be at least 18."
          errorMessage={validationMessage('Enter their date of birth.')}
        />
        <RadioGroupField
          name="gender"
          label="Gender"
          options={GENDER_OPTIONS}
          isRequired
          errorMessage={validationMessage('Choose one.')}
        />
        <SelectFormField
          name="designation"
          label="Role in the business"
          options={DESIGNATION_OPTIONS}
          isRequired
          errorMessage={validationMessage('Choose their role.')}
        />
        <TextField
          name="bvn"
          label="BVN"
          inputMode="numeric"
          autoComplete="off"
          pattern="[0-9]{11}"
          maxLength={11}
          isRequired
          description="Bank Verification Number, 11 digits. Stored encrypted and never shown in full. In the sandbox, a BVN starting with 22 passes."
          errorMessage={validationMessage('Enter their BVN.', 'A BVN has exactly 11 digits.')}
        />
        <SelectFormField
          name="id_type"
          label="ID type"
          options={ID_TYPE_OPTIONS}
          isRequired
          errorMessage={validationMessage('Choose the type of ID.')}
        />
        <TextField
          name="address"
          label="Residential address"
          autoComplete="off"
          maxLength={255}
          isRequired
          errorMessage={validationMessage('Enter their address.')}
        />
        <div className="form-grid__wide">
          <DocumentSourceField
            label="ID document"
            urlName="id_file_url"
            mode={mode}
            onModeChange={(next) => {
              setMode(next);
              setFileError(null);
            }}
            file={file}
            onFileChange={(next) => {
              setFile(next);
              setFileError(null);
            }}
            fileError={fileError}
            isDisabled={save.isPending}
          />
        </div>
      </div>
      {progress !== null && mode === 'file' ? (
        <ProgressBar label="Uploading the ID document" value={progress} />
      ) : null}
      {otherError ? (
        <Alert tone="error">
          <p>{errorMessage(save.error)}</p>
        </Alert>
      ) : null}
      <div className="form-actions">
        <Button type="submit" isPending={save.isPending}>
          {save.isPending ? 'Saving and checking…' : 'Save and verify identity'}
        </Button>
        {canCancel ? (
          <Button variant="quiet" onPress={onCancel} isDisabled={save.isPending}>
            Cancel
          </Button>
        ) : null}
      </div>
    </Form>
  );
}
