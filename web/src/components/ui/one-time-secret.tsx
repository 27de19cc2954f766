import type { ReactNode } from 'react';
import { Alert } from './alert';
import { CopyButton } from './copy-button';
import './form-controls.css';

export interface OneTimeSecretProps {
  /** What the secret is, as inside a sentence: "API key", "signing secret". */
  label: string;
  secret: string;
  /** Why it matters and where to keep it. */
  children?: ReactNode;
}

/** A secret the server shows this once: the value, a copy button and the warning that it will not come back. */
export function OneTimeSecret({ label, secret, children }: OneTimeSecretProps) {
  return (
    <div className="secret">
      <Alert tone="warning" title={`Copy this ${label} now: it is shown only once.`}>
        {children ?? <p>We keep only a hash of it. If you lose it, create a new one.</p>}
      </Alert>
      <code className="secret__value">{secret}</code>
      <CopyButton text={secret} label={`Copy ${label}`} />
    </div>
  );
}
