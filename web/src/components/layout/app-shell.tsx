import { type ReactNode, useEffect, useRef } from 'react';
import { Link } from 'react-aria-components';
import { useLocation } from 'react-router';
import './app-shell.css';

export interface AppShellProps {
  /** "Operator console" or "Partner dashboard": shown beside the brand. */
  appName: string;
  /** Short text at the right of the header, e.g. who the app is for. */
  headerNote?: ReactNode;
  /** The app's sections, after the brand (a <nav>). */
  navigation?: ReactNode;
  /** At the header's end: who is signed in, sign-out. Replaces headerNote when given. */
  account?: ReactNode;
  footer?: ReactNode;
  children: ReactNode;
}

/** Banner, main and content-info landmarks with a skip link; focus moves to <main> on navigation. */
export function AppShell({ appName, headerNote, navigation, account, footer, children }: AppShellProps) {
  const main = useRef<HTMLElement>(null);
  const { pathname, hash } = useLocation();
  const shownPath = useRef(pathname);

  // A client-side navigation replaces the page without a load: screen readers and keyboard users
  // would stay on the link they followed, so focus starts again at the new page's content.
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    // A link to a part of a page (#id) leaves focus to that part: the page moves it there.
    if (hash && document.getElementById(decodeURIComponent(hash.slice(1)))) return;
    main.current?.focus();
  }, [pathname, hash]);

  return (
    <div className="app-shell">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <header className="app-header">
        <div className="app-header__inner">
          <Link className="brand" href="/">
            <span className="brand__mark" aria-hidden="true">
              B
            </span>
            <span>BaaS</span>
            <span className="brand__app">{appName}</span>
          </Link>
          {navigation}
          {account ?? (headerNote ? <p className="app-header__note">{headerNote}</p> : null)}
        </div>
      </header>
      <main id="main" className="app-main" ref={main} tabIndex={-1}>
        {children}
      </main>
      <footer className="app-footer">
        <div className="app-footer__inner">{footer}</div>
      </footer>
    </div>
  );
}
