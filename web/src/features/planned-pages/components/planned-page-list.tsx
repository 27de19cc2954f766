import { useId } from 'react';
import { Link } from 'react-aria-components';
import { Card } from '@/components/ui/card';
import type { PlannedPageInfo } from '../types';
import './planned-pages.css';

export function PlannedPageList({ pages }: { pages: PlannedPageInfo[] }) {
  const headingId = useId();
  return (
    <Card labelledBy={headingId} className="planned-list">
      <h2 id={headingId}>Coming next</h2>
      <p className="planned-list__intro">These pages are not implemented yet.</p>
      <ul className="planned-list__items">
        {pages.map((page) => (
          <li key={page.route}>
            {page.href ? (
              <Link className="planned-list__link" href={page.href}>
                {page.title}
              </Link>
            ) : (
              <span className="planned-list__title">{page.title}</span>
            )}
            <span className="planned-list__description">{page.description}</span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
