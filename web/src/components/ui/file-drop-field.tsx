import { type ReactNode, useId, useState } from 'react';
import { type DropItem, DropZone, FileTrigger, Text } from 'react-aria-components';
import { UserText, visibleControls } from '@/components/ui/user-text';
import { ACCEPTED_FILE_TYPES, fileProblem } from '@/lib/file-checks';
import { formatBytes } from '@/lib/format';
import { Button } from './button';
import './form-controls.css';
import './ui.css';

export interface FileDropFieldProps {
  /** The field's visible label: "File". */
  label: string;
  /** What the file is, for the buttons' names: "CAC certificate" ("Choose file: CAC certificate"). */
  subject?: string;
  description?: ReactNode;
  file: File | null;
  /** A file that passed the checks, or null when removed. */
  onFileChange: (file: File | null) => void;
  /** An error from outside (the server's answer). */
  error?: string | null;
  isDisabled?: boolean;
}

/**
 * One document: dropped on the zone, pasted into it, or chosen with the file picker. Its type (by
 * content) and size are checked before it is accepted, so a wrong file never starts an upload.
 */
export function FileDropField({
  label,
  subject = label,
  description,
  file,
  onFileChange,
  error,
  isDisabled,
}: FileDropFieldProps) {
  const labelId = useId();
  const errorId = useId();
  const [problem, setProblem] = useState<string | null>(null);

  const take = async (candidate: File | undefined) => {
    if (!candidate) return;
    const found = await fileProblem(candidate);
    setProblem(found);
    onFileChange(found ? null : candidate);
  };
  const onDrop = async (items: DropItem[]) => {
    const item = items.find((entry) => entry.kind === 'file');
    if (item?.kind === 'file') await take(await item.getFile());
    else setProblem('Drop a file: a PDF, JPEG or PNG.');
  };
  const shownError = problem ?? error ?? null;

  return (
    <div className="file-field">
      <span className="field__label" id={labelId}>
        {label}
      </span>
      <DropZone
        className="drop-zone"
        aria-labelledby={labelId}
        isDisabled={isDisabled ?? false}
        // Any file is taken and then checked by its content (a renamed file is caught), so that a
        // wrong one is explained instead of silently refused.
        getDropOperation={() => 'copy'}
        onDrop={(event) => void onDrop(event.items)}
      >
        <Text slot="label" className="drop-zone__text">
          Drop a PDF, JPEG or PNG here (5 MB at most), or
        </Text>
        <FileTrigger
          acceptedFileTypes={ACCEPTED_FILE_TYPES}
          onSelect={(files) => void take(files?.[0] ?? undefined)}
        >
          <Button
            variant="secondary"
            size="small"
            isDisabled={isDisabled ?? false}
            aria-label={`Choose file: ${subject}`}
            aria-describedby={shownError ? errorId : undefined}
          >
            Choose file
          </Button>
        </FileTrigger>
      </DropZone>
      {description ? <span className="field__description">{description}</span> : null}
      {file ? (
        <p className="file-field__chosen">
          <span>
            Selected:{' '}
            <span className="file-field__name">
              <UserText>{file.name}</UserText>
            </span>{' '}
            ({formatBytes(file.size)})
          </span>
          <Button
            variant="quiet"
            size="small"
            aria-label={`Remove ${visibleControls(file.name)}`}
            isDisabled={isDisabled ?? false}
            onPress={() => onFileChange(null)}
          >
            Remove
          </Button>
        </p>
      ) : null}
      {shownError ? (
        <p className="field__error" id={errorId} role="alert">
          {shownError}
        </p>
      ) : null}
    </div>
  );
}
