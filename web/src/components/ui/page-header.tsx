import type { ReactNode } from 'react';
import './ui.css';

export interface PageHeaderProps {
  title: ReactNode;
  /** Above the title: a way back, a category. */
  eyebrow?: ReactNode;
  description?: ReactNode;
  /** Beside the title: status badges, actions. */
  aside?: ReactNode;
}

export function PageHeader({ title, eyebrow, description, aside }: PageHeaderProps) {
  return (
    <header className="page-header">
      {eyebrow ? <div className="page-header__eyebrow">{eyebrow}</div> : null}
      <div className="page-header__row">
        <h1 className="page-header__title">{title}</h1>
        {aside ? <div className="page-header__aside">{aside}</div> : null}
      </div>
      {description ? <p className="page-header__description">{description}</p> : null}
    </header>
  );
}
