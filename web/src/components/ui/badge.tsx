import type { ReactNode } from 'react';
import './ui.css';

export type BadgeTone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

/** A short status word in a tinted pill; the word itself carries the meaning, never the colour alone. */
export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ReactNode }) {
  return <span className={`badge badge--${tone}`}>{children}</span>;
}
