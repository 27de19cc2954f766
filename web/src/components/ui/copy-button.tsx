import { useEffect, useState } from 'react';
import { Button } from './button';

export interface CopyButtonProps {
  text: string;
  /** The button's text: "Copy link". */
  label: string;
  /**
   * Its accessible name when the text alone is ambiguous ("Copy account number 0123456789" for a
   * button reading "Copy"); it starts with `label`, so speech input finds it by what it shows.
   */
  accessibleName?: string;
}

/** Copies `text` to the clipboard and says so (or that copying failed) in a polite live region. */
export function CopyButton({ text, label, accessibleName }: CopyButtonProps) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 4000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span className="copy-button">
      <Button
        variant="secondary"
        size="small"
        {...(accessibleName ? { 'aria-label': accessibleName } : {})}
        onPress={() => {
          navigator.clipboard.writeText(text).then(
            () => setState('copied'),
            () => setState('failed'),
          );
        }}
      >
        {label}
      </Button>
      <span className="copy-button__status" role="status">
        {state === 'copied'
          ? 'Copied.'
          : state === 'failed'
            ? 'Copying failed: select the text instead.'
            : ''}
      </span>
    </span>
  );
}
