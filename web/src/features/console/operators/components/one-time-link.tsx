import { useId } from 'react';
import { Alert } from '@/components/ui/alert';
import { CopyButton } from '@/components/ui/copy-button';
import { DateTime } from '@/components/ui/date-time';
import type { CreatedInvitation } from '@/lib/api/operator-types';

/** A set-up link, shown this once (the server keeps only its hash): copy it and hand it over. */
export function OneTimeLink({ invitation }: { invitation: CreatedInvitation }) {
  const fieldId = useId();
  return (
    <div className="one-time-link">
      <Alert tone="warning" title="Copy this link now: it is shown only once.">
        <p>
          Send it to <strong>{invitation.email}</strong> over a channel you trust. It works once and expires{' '}
          <DateTime value={invitation.expires_at} />.
        </p>
      </Alert>
      <label className="field__label" htmlFor={fieldId}>
        Set-up link
      </label>
      <input id={fieldId} className="field__input one-time-link__url" value={invitation.url} readOnly />
      <CopyButton text={invitation.url} label="Copy link" />
    </div>
  );
}
