import type { ReactNode } from 'react';
import './ui.css';

export interface Detail {
  term: string;
  value: ReactNode;
}

/** Term and value pairs (a <dl>), for a record's fields. */
export function DetailList({ items }: { items: Detail[] }) {
  return (
    <dl className="detail-list">
      {items.map((item) => (
        <div className="detail-list__item" key={item.term}>
          <dt>{item.term}</dt>
          <dd>{item.value ?? <span className="muted">Not given</span>}</dd>
        </div>
      ))}
    </dl>
  );
}
