import { useId, useState } from 'react';
import { Checkbox } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';

/** Saves `text` as a file through a temporary blob: link (nothing leaves the browser). */
function download(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The recovery codes, shown this once: copy or download them, then confirm they are saved before
 * going on.
 */
export function RecoveryCodes({
  codes,
  email,
  onDone,
}: {
  codes: string[];
  email: string;
  onDone: () => void;
}) {
  const headingId = useId();
  const [saved, setSaved] = useState(false);
  const [showReminder, setShowReminder] = useState(false);
  const text = [`BaaS operator console: recovery codes for ${email}`, '', ...codes, ''].join('\n');
  return (
    <section aria-labelledby={headingId} className="recovery-codes">
      <h2 id={headingId}>Save your recovery codes</h2>
      <Alert tone="warning" title="These codes are shown only this once.">
        <p>
          Each code signs you in once if you lose your authenticator app. Keep them somewhere safe, such as a
          password manager.
        </p>
      </Alert>
      <ol className="recovery-codes__list" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="recovery-codes__actions">
        <CopyButton text={text} label="Copy codes" />
        <Button
          variant="secondary"
          size="small"
          onPress={() => download(text, 'baas-console-recovery-codes.txt')}
        >
          Download as a text file
        </Button>
      </div>
      <Checkbox
        className="checkbox"
        isSelected={saved}
        onChange={(value) => {
          setSaved(value);
          if (value) setShowReminder(false);
        }}
      >
        <span className="checkbox__box" aria-hidden="true">
          {saved ? '✓' : ''}
        </span>
        I have saved my recovery codes
      </Checkbox>
      {showReminder ? (
        <Alert tone="error">
          <p>Confirm that you saved your recovery codes: they cannot be shown again.</p>
        </Alert>
      ) : null}
      <Button
        className="recovery-codes__continue"
        onPress={() => {
          if (saved) onDone();
          else setShowReminder(true);
        }}
      >
        Continue to the console
      </Button>
    </section>
  );
}
