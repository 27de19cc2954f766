import { Link } from 'react-aria-components';
import { useParams } from 'react-router';
import type { PlannedPageInfo } from '../types';
import './planned-pages.css';

/** What a planned route shows until its page is built: what it will hold, and the way back. */
export function PlannedPage({ page, appName }: { page: PlannedPageInfo; appName: string }) {
  const values = useParams();
  const params = Object.entries(page.params ?? {}).flatMap(([name, label]) => {
    const value = values[name];
    return value === undefined ? [] : [{ name, label, value }];
  });
  return (
    <article className="planned-page">
      <title>{`${page.title} · ${appName}`}</title>
      <p className="planned-page__badge">Not implemented yet</p>
      <h1>{page.title}</h1>
      <p>{page.description}</p>
      {params.length > 0 ? (
        <dl className="planned-page__params">
          {params.map(({ name, label, value }) => (
            <div key={name}>
              <dt>{label}</dt>
              <dd>
                <code>{value}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      <p>
        <Link href="/">Back to sign-in</Link>
      </p>
    </article>
  );
}
