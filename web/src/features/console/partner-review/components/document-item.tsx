import { ApiError } from '@baas/sdk';
import { type KeyboardEvent, lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
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
import { useClearErrorOnChange } from '@/lib/use-clear-error-on-change';
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
  useClearErrorOnChange(decide, [document?.id, document?.status]);

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

/** The preview's zoom steps, as a share of the column's width. */
const ZOOMS = [0.5, 0.75, 1, 1.5, 2, 3] as const;
const DEFAULT_ZOOM = ZOOMS.indexOf(1);

/** How a preview is shown: a zoom step and a quarter-turn count, clockwise. */
export interface PreviewView {
  zoom: number;
  rotation: 0 | 90 | 180 | 270;
}

/**
 * The file drawn in the page: a PDF by pdf.js (no script of the file runs, and the browser's own
 * viewer, which would run them, never sees it), an image in an <img>, which runs nothing. Zoom
 * in and out, rotate and reset, by the buttons or, in the focused view, by +, -, R and 0.
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
  const [step, setStep] = useState(DEFAULT_ZOOM);
  const [rotation, setRotation] = useState<PreviewView['rotation']>(0);
  const zoomBy = (delta: number) =>
    setStep((current) => Math.min(ZOOMS.length - 1, Math.max(0, current + delta)));
  const rotate = () => setRotation((current) => ((current + 90) % 360) as PreviewView['rotation']);
  const reset = () => {
    setStep(DEFAULT_ZOOM);
    setRotation(0);
  };
  const view: PreviewView = { zoom: ZOOMS[step] ?? 1, rotation };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const actions: Record<string, () => void> = {
      '+': () => zoomBy(1),
      '=': () => zoomBy(1),
      '-': () => zoomBy(-1),
      r: rotate,
      R: rotate,
      '0': reset,
    };
    const action = actions[event.key];
    if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    action();
  };
  const percent = Math.round(view.zoom * 100);
  const viewLabel = `Preview of ${label}: + and - zoom, R rotates, 0 resets`;

  return (
    <div className="document__preview" id={id}>
      <fieldset className="preview-controls" aria-label={`View of ${label}`}>
        <Button variant="secondary" size="small" onPress={() => zoomBy(-1)}>
          Zoom out
        </Button>
        <Button variant="secondary" size="small" onPress={() => zoomBy(1)}>
          Zoom in
        </Button>
        <Button variant="secondary" size="small" onPress={rotate}>
          Rotate
        </Button>
        <Button variant="secondary" size="small" onPress={reset}>
          Reset view
        </Button>
        <span className="preview-controls__state" role="status">
          {percent}%{rotation === 0 ? '' : `, turned ${rotation}°`}
        </span>
      </fieldset>
      {/* Scrolls when zoomed: it takes focus, so the keyboard scrolls it too (and zooms: +, -, R, 0). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region takes focus, so a keyboard can scroll it. */}
      <section className="preview-viewport" aria-label={viewLabel} tabIndex={0} onKeyDown={onKeyDown}>
        {document.content_type === 'application/pdf' ? (
          <Suspense fallback={<Loading label="Loading the PDF viewer…" />}>
            <PdfPreview companyId={companyId} documentId={document.id} label={label} view={view} />
          </Suspense>
        ) : (
          <PreviewImage src={documentFileUrl(companyId, document.id)} label={label} view={view} />
        )}
      </section>
    </div>
  );
}

/** An image at the zoom's share of the view's width, turned by CSS (set through the CSSOM: the CSP allows no style attribute). */
function PreviewImage({ src, label, view }: { src: string; label: string; view: PreviewView }) {
  const image = useRef<HTMLImageElement>(null);
  useEffect(() => {
    const element = image.current;
    if (!element) return;
    element.style.width = `${view.zoom * 100}%`;
    element.style.transform = view.rotation === 0 ? '' : `rotate(${view.rotation}deg)`;
  }, [view.zoom, view.rotation]);
  return <img ref={image} className="document__image" src={src} alt={`Preview of ${label}`} />;
}
