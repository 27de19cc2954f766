import type { ReactNode } from 'react';
import './section-header.css';

export interface SectionHeaderProps {
  /** The heading's id, for the section's aria-labelledby. */
  id: string;
  title: ReactNode;
  description?: ReactNode;
  /** At the end: the section's main action. */
  action?: ReactNode;
  /** The heading level: 2 under a page's h1. */
  level?: 2 | 3;
}

/** A section's heading, what it is for, and its main action beside them (below on narrow screens). */
export function SectionHeader({ id, title, description, action, level = 2 }: SectionHeaderProps) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <div className="section-header">
      <div className="section-header__text">
        <Heading id={id} className="section-header__title">
          {title}
        </Heading>
        {description ? <div className="section-header__description">{description}</div> : null}
      </div>
      {action ? <div className="section-header__action">{action}</div> : null}
    </div>
  );
}
