import { ApiError } from '@baas/sdk';
import { errorMessage } from '@/lib/api/api-error';
import { Alert } from './alert';
import { Button } from './button';
import './ui.css';

export interface ExportButtonProps {
  /** What the file holds, for the error's title: "accounts". */
  what: string;
  /** Starts the download (a mutation's mutate). */
  onExport: () => void;
  isPending: boolean;
  /** The file name saved, once saved. */
  saved: string | undefined;
  error: Error | null;
}

/** "Export CSV": saves every row the list's filters select, then says what it saved, or why not. */
export function ExportButton({ what, onExport, isPending, saved, error }: ExportButtonProps) {
  const fieldErrors = error instanceof ApiError ? Object.values(error.errors).flat().join(' ') : '';
  return (
    <div className="export-button">
      <Button variant="secondary" size="small" onPress={onExport} isPending={isPending}>
        {isPending ? 'Preparing…' : 'Export CSV'}
      </Button>
      <p role="status" className="export-button__status">
        {saved && !isPending ? `Saved ${saved}.` : ''}
      </p>
      {error ? (
        <Alert tone="error" title={`The ${what} could not be exported.`}>
          <p>{fieldErrors || errorMessage(error)}</p>
        </Alert>
      ) : null}
    </div>
  );
}
