import { type ReactNode, useId, useState } from 'react';
import { Checkbox } from 'react-aria-components';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import './second-factor.css';

/** Saves `text` as a file through a temporary blob: link (nothing leaves the browser). */
function download(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export interface RecoveryCodesProps {
  codes: string[];
  email: string;
  /** Whose codes, at the top of the copied or downloaded text: "BaaS operator console". */
  appName: string;
  /** The downloaded file's name. */
  fileName: string;
  /** The last button: "Continue to the console". */
  continueLabel: string;
  /** What happens next, under the warning (the dashboard: this session stays as it was). */
  note?: ReactNode;
  /** The heading's level where the codes sit (under a card's h3 on the dashboard). */
  headingLevel?: 2 | 3 | 4;
  onDone: () => void;
}

/**
 * The recovery codes, shown this once: copy or download them, then confirm they are saved before
 * going on.
 */
export function RecoveryCodes({
  codes,
  email,
  appName,
  fileName,
  continueLabel,
  note,
  headingLevel = 2,
  onDone,
}: RecoveryCodesProps) {
  const Heading = (['h2', 'h3', 'h4'] as const)[headingLevel - 2] ?? 'h2';
  const headingId = useId();
  const [saved, setSaved] = useState(false);
  const [showReminder, setShowReminder] = useState(false);
  const text = [`${appName}: recovery codes for ${email}`, '', ...codes, ''].join('\n');
  return (
    <section aria-labelledby={headingId} className="recovery-codes">
      <Heading id={headingId} tabIndex={-1}>
        Save your recovery codes
      </Heading>
      <Alert tone="warning" title="These codes are shown only this once.">
        <p>
          Each code signs you in once if you lose your authenticator app. Keep them somewhere safe, such as a
          password manager.
        </p>
      </Alert>
      {note}
      <ol className="recovery-codes__list" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="recovery-codes__actions">
        <CopyButton text={text} label="Copy codes" />
        <Button variant="secondary" size="small" onPress={() => download(text, fileName)}>
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
        {continueLabel}
      </Button>
    </section>
  );
}
