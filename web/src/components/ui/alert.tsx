import type { ReactNode } from 'react';
import './ui.css';

export interface AlertProps {
  tone?: 'error' | 'info' | 'success' | 'warning';
  title?: ReactNode;
  children?: ReactNode;
  className?: string;
}

/**
 * A message beside what it is about. Errors and warnings are announced when they appear
 * (role="alert"); information and success are polite (role="status").
 */
export function Alert({ tone = 'info', title, children, className }: AlertProps) {
  const role = tone === 'error' || tone === 'warning' ? 'alert' : 'status';
  return (
    <div className={`alert alert--${tone}${className ? ` ${className}` : ''}`} role={role}>
      {title ? <p className="alert__title">{title}</p> : null}
      {children ? <div className="alert__body">{children}</div> : null}
    </div>
  );
}

/** A server's field errors (`errors` of the envelope) as a list: "documents.memart: missing". */
export function FieldErrorList({
  errors,
  label = (field) => field,
}: {
  errors: Record<string, string[]>;
  label?: (field: string) => string;
}) {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return (
    <ul className="alert__list">
      {entries.map(([field, messages]) => (
        <li key={field}>
          <strong>{label(field)}</strong>: {messages.join(', ')}
        </li>
      ))}
    </ul>
  );
}
