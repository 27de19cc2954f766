import { ApiError } from '@baas/sdk';
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DateTime } from '@/components/ui/date-time';
import { Loading } from '@/components/ui/loading';
import { UserText } from '@/components/ui/user-text';
import { errorMessage } from '@/lib/api/api-error';
import type { PartnerDocument } from '@/lib/api/operator-types';
import { formatBytes } from '@/lib/format';
import { documentTypeLabel } from '@/lib/onboarding-labels';
import { useResetOnChange } from '@/lib/use-reset-on-change';
import { documentFileUrl, useDecideDocument } from '../api/partner';
import { DecisionDialog } from './decision-dialog';

// pdf.js and its worker are loaded when a PDF's preview first opens, not with the console.
const PdfPreview = lazy(() => import('./pdf-preview').then((module) => ({ default: module.PdfPreview })));

const STATUS: Record<PartnerDocument['status'], { label: string; tone: BadgeTone }> = {
  pending_review: { label: 'Pending review', tone: 'info' },
  approved: { label: 'Approved', tone: 'success' },
  rejected: { label: 'Rejected', tone: 'danger' },
};

const FILE_KINDS: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
};

/**
 * A document's status; an upload superseded before anyone decided it is "Superseded", not
 * "Pending review": nobody will review it (issue 30).
 */
export function DocumentStatusBadge({ document }: { document: PartnerDocument }) {
  if (!document.current && document.status === 'pending_review') return <Badge>Superseded</Badge>;
  return <Badge tone={STATUS[document.status].tone}>{STATUS[document.status].label}</Badge>;
}

export function fileDescription(document: PartnerDocument): string {
  if (document.source === 'url') return 'Link to a file the partner hosts';
  const kind = (document.content_type && FILE_KINDS[document.content_type]) ?? 'File';
  return document.size_bytes === null ? kind : `${kind}, ${formatBytes(document.size_bytes)}`;
}

export interface DocumentItemProps {
  companyId: number;
  documentType: string;
  /** In the checklist of the partner's business type. */
  required: boolean;
  /** The current upload of this type, if any. */
  document: PartnerDocument | undefined;
}

/**
 * One document of the checklist: its current upload with status, an inline preview, and while it
 * awaits review, approve and reject (with a reason the partner reads).
 */
export function DocumentItem({ companyId, documentType, required, document }: DocumentItemProps) {
  const label = documentTypeLabel(documentType);
  const headingId = useId();
  const previewId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [previewOpen, setPreviewOpen] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [decided, setDecided] = useState(0);
  const [announcement, setAnnouncement] = useState('');
  const decide = useDecideDocument(companyId);
  // A refused decision goes once the document it was about changed (decided elsewhere, replaced).
  useResetOnChange(decide.reset, [document?.id, document?.status]);

  // The decision's buttons go once it is made: focus stays with this document, on its heading.
  useEffect(() => {
    if (decided > 0) heading.current?.focus();
  }, [decided]);

  const pending = document?.status === 'pending_review';
  const dialogError =
    decide.error instanceof ApiError && decide.error.errorCode === 'VALIDATION_FAILED' ? decide.error : null;
  const inlineError = decide.error && !dialogError ? decide.error : null;

  return (
    <li className="document">
      {/* Focus goes to the heading after a decision; this says what happened. */}
      <span className="visually-hidden" role="status">
        {announcement}
      </span>
      <div className="document__head">
        <h3 className="document__title" id={headingId} ref={heading} tabIndex={-1}>
          {label}
        </h3>
        <div className="document__badges">
          {document ? (
            <DocumentStatusBadge document={document} />
          ) : (
            <Badge tone="warning">Not uploaded</Badge>
          )}
          {required ? null : <Badge>Additional</Badge>}
        </div>
      </div>
      {document ? (
        <>
          <p className="document__meta">
            {fileDescription(document)} · uploaded <DateTime value={document.uploaded_at} />
            {document.reviewed_at ? (
              <>
                {' '}
                · reviewed <DateTime value={document.reviewed_at} />
              </>
            ) : null}
          </p>
          {document.status === 'rejected' && document.rejection_reason ? (
            <p className="document__reason">
              <span className="document__reason-label">Reason given:</span>{' '}
              <UserText>{document.rejection_reason}</UserText>
            </p>
          ) : null}
          {document.source === 'url' && document.file_url ? (
            <p className="document__link">
              Hosted by the partner, never fetched by the service:{' '}
              <a href={document.file_url} target="_blank" rel="noopener noreferrer">
                <UserText>{document.file_url}</UserText>
              </a>
            </p>
          ) : null}
          <div className="document__actions">
            {document.source === 'upload' ? (
              <>
                <Button
                  variant="secondary"
                  size="small"
                  aria-expanded={previewOpen}
                  aria-controls={previewOpen ? previewId : undefined}
                  aria-label={`${previewOpen ? 'Hide' : 'Show'} preview of ${label}`}
                  onPress={() => setPreviewOpen((open) => !open)}
                >
                  {previewOpen ? 'Hide preview' : 'Show preview'}
                </Button>
                <a
                  className="document__download"
                  href={documentFileUrl(companyId, document.id)}
                  download
                  aria-label={`Download ${label}`}
                >
                  Download
                </a>
              </>
            ) : null}
            {pending ? (
              <span className="document__decision">
                <Button
                  size="small"
                  aria-label={`Approve ${label}`}
                  isPending={decide.isPending && decide.variables?.decision === 'approve'}
                  onPress={() =>
                    decide.mutate(
                      { documentId: document.id, decision: 'approve' },
                      {
                        onSuccess: () => {
                          setDecided((count) => count + 1);
                          setAnnouncement(`${label} approved.`);
                        },
                      },
                    )
                  }
                >
                  Approve
                </Button>
                <Button
                  size="small"
                  variant="secondary"
                  aria-label={`Reject ${label}`}
                  aria-haspopup="dialog"
                  onPress={() => {
                    decide.reset();
                    setRejecting(true);
                  }}
                >
                  Reject
                </Button>
              </span>
            ) : null}
          </div>
          {inlineError ? (
            <Alert tone="error">
              <p>{errorMessage(inlineError)}</p>
            </Alert>
          ) : null}
          {previewOpen && document.source === 'upload' ? (
            <DocumentPreview id={previewId} companyId={companyId} document={document} label={label} />
          ) : null}
          <DecisionDialog
            isOpen={rejecting}
            onOpenChange={setRejecting}
            title={`Reject ${label}?`}
            description="The partner is asked to upload it again. Until then the application cannot be approved."
            reasonLabel="Reason for rejecting"
            confirmLabel="Reject document"
            tone="danger"
            isPending={decide.isPending}
            error={dialogError}
            onConfirm={(reason) =>
              decide.mutate(
                { documentId: document.id, decision: 'reject', reason },
                {
                  onSuccess: () => {
                    setRejecting(false);
                    setDecided((count) => count + 1);
                    setAnnouncement(`${label} rejected.`);
                  },
                  onError: (error) => {
                    if (!(error instanceof ApiError && error.errorCode === 'VALIDATION_FAILED'))
                      setRejecting(false);
                  },
                },
              )
            }
          />
        </>
      ) : (
        <p className="document__meta">The partner has not uploaded this document yet.</p>
      )}
    </li>
  );
}

/**
 * The file drawn in the page: a PDF by pdf.js (no script of the file runs, and the browser's own
 * viewer, which would run them, never sees it), an image in an <img>, which runs nothing.
 */
function DocumentPreview({
  id,
  companyId,
  document,
  label,
}: {
  id: string;
  companyId: number;
  document: PartnerDocument;
  label: string;
}) {
  return (
    <div className="document__preview" id={id}>
      {document.content_type === 'application/pdf' ? (
        <Suspense fallback={<Loading label="Loading the PDF viewer…" />}>
          <PdfPreview companyId={companyId} documentId={document.id} label={label} />
        </Suspense>
      ) : (
        <img
          className="document__image"
          src={documentFileUrl(companyId, document.id)}
          alt={`Preview of ${label}`}
        />
      )}
    </div>
  );
}
