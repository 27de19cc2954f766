import { Link } from 'react-aria-components';

export function NotFoundPage({ appName }: { appName: string }) {
  return (
    <article>
      <title>{`Page not found · ${appName}`}</title>
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <p>
        <Link href="/">Back to sign-in</Link>
      </p>
    </article>
  );
}
