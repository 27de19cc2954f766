import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form } from 'react-aria-components';
import { PersonFields, readPerson } from '@/components/person-fields';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { OnboardingProfile, RepresentativeResult } from '@/lib/api/partner-types';
import { useAccess } from '@/lib/partner-roles';
import { PERSON_FIELD_LABELS } from '@/lib/person-labels';
import { fieldErrorSentences } from '@/lib/validation-message';
import { type RepresentativeFields, useSaveRepresentative } from '../api/uploads';
import { canChangeOnboarding, type StepState } from '../steps';
import { DocumentSourceField, type SourceMode } from './document-source-field';
import { StepCard } from './step-card';

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
  const canEdit = useAccess('onboarding').allowed;
  const canChange = canChangeOnboarding(profile) && canEdit;

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
      {!canEdit && !representative ? (
        <p className="muted">No compliance representative is on file yet.</p>
      ) : !canChange && !representative ? (
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
    const fields = readPerson(form) as RepresentativeFields;
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
      <PersonFields
        addressLabel="Residential address"
        bvn={{
          description:
            'Bank Verification Number, 11 digits. Stored encrypted and never shown in full. In the sandbox, a BVN starting with 22 passes.',
        }}
        idDocument={
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
        }
      />
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
