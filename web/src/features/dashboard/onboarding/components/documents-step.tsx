import { ApiError } from '@baas/sdk';
import { type FormEvent, useState } from 'react';
import { Form } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { ProgressBar } from '@/components/ui/progress-bar';
import { userText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { OnboardingProfile, PartnerDocument, PartnerDocumentType } from '@/lib/api/partner-types';
import { documentTypeLabel } from '@/lib/onboarding-labels';
import { useAccess } from '@/lib/partner-roles';
import { useDownloadDocument, useUploadDocument } from '../api/uploads';
import { canChangeOnboarding, type StepState } from '../steps';
import { DocumentSourceField, type SourceMode } from './document-source-field';
import { StepCard } from './step-card';

const DOCUMENT_HELP: Partial<Record<PartnerDocumentType, string>> = {
  cac_certificate: 'The certificate of incorporation or registration issued by the CAC.',
  memart: 'Memorandum and articles of association.',
  cac_status_report: 'A recent status report (or CAC 1.1 / CAC 7) listing directors and shareholders.',
  board_resolution: 'A board resolution authorising the business to open accounts with us.',
  valid_id: "The representative's ID, uploaded with their details in step 2. Replace it here if needed.",
  proof_of_address: 'A utility bill or bank statement for the business address, at most 3 months old.',
  constitution: 'The constitution of the incorporated trustees.',
  scuml_certificate: 'The SCUML registration certificate.',
};

type Shown = { tone: BadgeTone; label: string };

/** Before the application is submitted nobody reviews an upload yet: it is "Uploaded", not waiting. */
function documentBadge(document: PartnerDocument | undefined, submitted: boolean): Shown {
  if (!document) return { tone: 'neutral', label: 'Missing' };
  if (document.status === 'approved') return { tone: 'success', label: 'Approved' };
  if (document.status === 'rejected') return { tone: 'danger', label: 'Rejected' };
  return submitted ? { tone: 'info', label: 'Waiting for review' } : { tone: 'info', label: 'Uploaded' };
}

/** Step 3: the checklist for the business type, one row per document with its state and upload. */
export function DocumentsStep({ profile, state }: { profile: OnboardingProfile; state: StepState }) {
  const types = Object.keys(profile.document_checklist) as PartnerDocumentType[];
  const canEdit = useAccess('onboarding').allowed;
  const canChange = canChangeOnboarding(profile) && canEdit;
  const uploaded = Object.values(profile.document_checklist).filter((entry) => entry === 'uploaded').length;

  return (
    <StepCard
      id="documents"
      number={3}
      title="Documents"
      state={state}
      description="PDF, JPEG or PNG files of at most 5 MB each, or links to copies you host. A new upload replaces the previous one of its type."
    >
      {types.length === 0 ? (
        <p className="muted">Choose your business type in step 1: the list of documents depends on it.</p>
      ) : (
        <>
          <p className="documents__count">
            {uploaded} of {types.length} required documents provided.
          </p>
          <ul className="documents">
            {types.map((type) => (
              <DocumentRow
                key={type}
                type={type}
                document={profile.documents.find((candidate) => candidate.document_type === type)}
                canChange={canChange}
                submitted={profile.onboarding_status !== 'in_progress'}
              />
            ))}
          </ul>
        </>
      )}
    </StepCard>
  );
}

function DocumentRow({
  type,
  document,
  canChange,
  submitted,
}: {
  type: PartnerDocumentType;
  document: PartnerDocument | undefined;
  canChange: boolean;
  /** Whether the application went to review: only then does an upload wait for a reviewer. */
  submitted: boolean;
}) {
  const [replacing, setReplacing] = useState(false);
  const badge = documentBadge(document, submitted);
  const needsUpload = !document || document.status === 'rejected';
  const label = documentTypeLabel(type);

  return (
    <li className="document-row">
      <div className="document-row__head">
        <h3 className="document-row__title">{label}</h3>
        <Badge tone={badge.tone}>{badge.label}</Badge>
      </div>
      {DOCUMENT_HELP[type] ? <p className="document-row__help">{DOCUMENT_HELP[type]}</p> : null}
      {document ? <ProvidedDocument document={document} label={label} /> : null}
      {document?.status === 'rejected' ? (
        <Alert tone="error" title="Our reviewer rejected this document.">
          <p>{userText(document.rejection_reason) ?? 'No reason was given.'}</p>
          <p>Upload a corrected document to replace it.</p>
        </Alert>
      ) : null}
      {canChange && (needsUpload || replacing) ? (
        <DocumentUpload
          type={type}
          label={label}
          onDone={() => setReplacing(false)}
          {...(replacing ? { onCancel: () => setReplacing(false) } : {})}
        />
      ) : canChange ? (
        <Button
          variant="secondary"
          size="small"
          aria-label={`Replace ${label}`}
          onPress={() => setReplacing(true)}
        >
          Replace
        </Button>
      ) : null}
    </li>
  );
}

/** When it was provided, and the partner's own copy of the file to check what was sent. */
function ProvidedDocument({ document, label }: { document: PartnerDocument; label: string }) {
  const download = useDownloadDocument();
  return (
    <div className="document-row__provided">
      <p className="document-row__meta">
        Provided <DateTime value={document.uploaded_at} />
      </p>
      <Button
        variant="quiet"
        size="small"
        aria-label={`Download ${label}`}
        isPending={download.isPending}
        onPress={() => download.mutate({ id: document.id, documentType: document.document_type })}
      >
        {download.isPending ? 'Downloading…' : 'Download'}
      </Button>
      <span role="status" className="document-row__download-status">
        {download.isSuccess ? `Saved ${download.data}.` : ''}
      </span>
      {download.error ? (
        <Alert tone="error" title="The file could not be downloaded.">
          <p>{errorMessage(download.error)}</p>
        </Alert>
      ) : null}
    </div>
  );
}

function DocumentUpload({
  type,
  label,
  onDone,
  onCancel,
}: {
  type: PartnerDocumentType;
  label: string;
  onDone: () => void;
  onCancel?: () => void;
}) {
  const upload = useUploadDocument();
  const [mode, setMode] = useState<SourceMode>('file');
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (mode === 'file' && !file) {
      setFileError('Choose a file first, or give a link to the document.');
      return;
    }
    const url = String(new FormData(event.currentTarget).get('file_url') ?? '').trim();
    setFileError(null);
    setProgress(0);
    upload.mutate(
      { documentType: type, source: mode === 'file' && file ? { file } : { url }, onProgress: setProgress },
      {
        onSuccess: () => {
          setFile(null);
          onDone();
        },
        onError: (error) => {
          if (error instanceof ApiError && error.errors['file']) setFileError(error.errors['file'].join(' '));
        },
        onSettled: () => setProgress(null),
      },
    );
  };

  return (
    <Form className="document-upload" onSubmit={submit}>
      <DocumentSourceField
        label={label}
        fileLabel="File"
        urlName="file_url"
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
        isDisabled={upload.isPending}
      />
      {progress !== null && mode === 'file' ? (
        <ProgressBar label={`Uploading ${label}`} value={progress} />
      ) : null}
      {upload.error && !(upload.error instanceof ApiError && upload.error.errors['file']) ? (
        <Alert tone="error">
          <p>{errorMessage(upload.error)}</p>
        </Alert>
      ) : null}
      <div className="form-actions">
        <Button
          type="submit"
          size="small"
          isPending={upload.isPending}
          aria-label={upload.isPending ? `Uploading ${label}` : `Upload ${label}`}
        >
          {upload.isPending ? 'Uploading…' : 'Upload'}
        </Button>
        {onCancel ? (
          <Button variant="quiet" size="small" onPress={onCancel} isDisabled={upload.isPending}>
            Cancel
          </Button>
        ) : null}
      </div>
    </Form>
  );
}
