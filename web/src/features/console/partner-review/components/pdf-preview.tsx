import { useQuery } from '@tanstack/react-query';
import { AnnotationMode, GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useId, useRef, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading } from '@/components/ui/loading';
import { errorMessage } from '@/lib/api/api-error';
import { documentFileQuery } from '../api/partner';
import type { PreviewView } from './document-item';

// A hashed file of this origin, started as a module worker (the page CSP's worker-src 'self').
GlobalWorkerOptions.workerSrc = workerUrl;

/** Wider than this the page is no easier to read, only slower to draw. */
const MAX_WIDTH = 960;

export interface PdfPreviewProps {
  companyId: number;
  documentId: string;
  /** The document's name, for the page image's alternative text. */
  label: string;
  /** Zoom (a share of the column's width) and rotation. */
  view: PreviewView;
}

/**
 * A PDF drawn page by page on a canvas by pdf.js: no script of the file runs (pdf.js's scripting
 * is never loaded, forms are drawn as their appearance, not as fields), and nothing is evaluated
 * (isEvalSupported: false, no WebAssembly: the page CSP allows neither). Loaded as a chunk of its
 * own when a preview opens.
 */
export function PdfPreview({ companyId, documentId, label, view }: PdfPreviewProps) {
  const file = useQuery(documentFileQuery(companyId, documentId));
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pageNumber, setPageNumber] = useState(1);
  const [width, setWidth] = useState(0);
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const statusId = useId();

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.min(MAX_WIDTH, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (!file.data) return;
    // pdf.js hands its data to the worker (detaching it): the cached bytes stay whole.
    const task = getDocument({
      data: new Uint8Array(file.data.slice(0)),
      isEvalSupported: false,
      enableXfa: false,
      useWasm: false,
      stopAtErrors: false,
      verbosity: 0,
    });
    task.promise.then(
      (loaded) => {
        setPdf(loaded);
        setPageNumber(1);
      },
      (error: unknown) =>
        setFailure(
          error instanceof Error && error.name === 'PasswordException'
            ? 'This PDF is protected by a password: download it to open it.'
            : 'This file could not be read as a PDF: download it to inspect it.',
        ),
    );
    return () => {
      setPdf(null);
      void task.destroy();
    };
  }, [file.data]);

  useEffect(() => {
    const target = canvas.current;
    if (!pdf || !target || width === 0) return;
    let cancelled = false;
    let cancel = () => {};
    pdf
      .getPage(pageNumber)
      .then((page) => {
        if (cancelled) return;
        const rotation = (page.rotate + view.rotation) % 360;
        const scale = (width * view.zoom) / page.getViewport({ scale: 1, rotation }).width;
        const ratio = window.devicePixelRatio || 1;
        const viewport = page.getViewport({ scale: scale * ratio, rotation });
        target.width = Math.floor(viewport.width);
        target.height = Math.floor(viewport.height);
        target.style.width = `${Math.floor(viewport.width / ratio)}px`;
        const render = page.render({ canvas: target, viewport, annotationMode: AnnotationMode.ENABLE });
        cancel = () => render.cancel();
        return render.promise;
      })
      .catch((error: unknown) => {
        if (!cancelled && !(error instanceof Error && error.name === 'RenderingCancelledException')) {
          setFailure('This page could not be drawn: download the file to inspect it.');
        }
      });
    return () => {
      cancelled = true;
      cancel();
    };
  }, [pdf, pageNumber, width, view.zoom, view.rotation]);

  const pages = pdf?.numPages ?? 0;
  const problem = failure ?? (file.error ? errorMessage(file.error) : null);
  return (
    <div className="pdf-preview">
      {pages > 1 ? (
        <nav className="pdf-preview__pager" aria-label={`Pages of ${label}`}>
          <Button
            variant="secondary"
            size="small"
            isDisabled={pageNumber <= 1}
            onPress={() => setPageNumber((page) => page - 1)}
            aria-describedby={statusId}
          >
            Previous page
          </Button>
          <span className="pdf-preview__page" id={statusId} aria-live="polite">
            Page {pageNumber} of {pages}
          </span>
          <Button
            variant="secondary"
            size="small"
            isDisabled={pageNumber >= pages}
            onPress={() => setPageNumber((page) => page + 1)}
            aria-describedby={statusId}
          >
            Next page
          </Button>
        </nav>
      ) : pages === 1 ? (
        <p className="pdf-preview__page">1 page</p>
      ) : null}
      {problem ? (
        <Alert tone="error">
          <p>{problem}</p>
        </Alert>
      ) : pdf ? null : (
        <Loading label="Loading the PDF…" />
      )}
      <div className="pdf-preview__frame" ref={frame}>
        <canvas
          ref={canvas}
          className="pdf-preview__canvas"
          role="img"
          aria-label={`Page ${pageNumber} of ${pages} of ${label}`}
          hidden={!pdf || problem !== null}
        />
      </div>
    </div>
  );
}
