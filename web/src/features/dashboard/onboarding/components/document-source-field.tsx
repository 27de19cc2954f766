import { Button } from '@/components/ui/button';
import { FileDropField } from '@/components/ui/file-drop-field';
import { TextField } from '@/components/ui/text-field';
import { validationMessage } from '@/lib/validation-message';

export type SourceMode = 'file' | 'url';

export interface DocumentSourceFieldProps {
  /** What the document is: "ID document", "CAC certificate". */
  label: string;
  /** The file field's visible label where a heading already names the document ("File"). */
  fileLabel?: string;
  /** The multipart field name of the link: id_file_url or file_url. */
  urlName: string;
  mode: SourceMode;
  onModeChange: (mode: SourceMode) => void;
  file: File | null;
  onFileChange: (file: File | null) => void;
  fileError?: string | null;
  isDisabled?: boolean;
}

/**
 * A document as an upload (drop zone or file picker) or, instead, the https address of a copy the
 * partner hosts: one switch between the two, the upload first.
 */
export function DocumentSourceField({
  label,
  fileLabel = label,
  urlName,
  mode,
  onModeChange,
  file,
  onFileChange,
  fileError,
  isDisabled,
}: DocumentSourceFieldProps) {
  return (
    <div className="document-source">
      {mode === 'file' ? (
        <FileDropField
          label={fileLabel}
          subject={label}
          file={file}
          onFileChange={onFileChange}
          error={fileError ?? null}
          isDisabled={isDisabled ?? false}
        />
      ) : (
        <TextField
          name={urlName}
          type="url"
          label={`${label} link`}
          placeholder="https://"
          description="An https address where our reviewers can open the document. We keep the link; we do not download it."
          pattern="https://.+"
          maxLength={2048}
          isRequired
          isDisabled={isDisabled ?? false}
          errorMessage={validationMessage(
            'Enter the link to the document.',
            'The link must start with https://.',
          )}
        />
      )}
      <Button
        variant="quiet"
        size="small"
        className="document-source__switch"
        isDisabled={isDisabled ?? false}
        onPress={() => onModeChange(mode === 'file' ? 'url' : 'file')}
      >
        {mode === 'file' ? 'Give a link instead' : 'Upload a file instead'}
      </Button>
    </div>
  );
}
