import { NavLink } from 'react-router';

const LINKS = [
  { to: '/overview', label: 'Overview' },
  { to: '/onboarding', label: 'Onboarding' },
  { to: '/accounts', label: 'Virtual accounts' },
  { to: '/transfers', label: 'Transfers' },
  { to: '/developers', label: 'Developers' },
  { to: '/settings', label: 'Settings' },
];

/**
 * The dashboard's sections. NavLink marks the current one (aria-current), sub-pages included. Every
 * role may read every section; what a role cannot do is hidden or disabled inside them (the API keys
 * tab of Developers, for one).
 */
export function DashboardNav() {
  return (
    <nav className="app-nav" aria-label="Dashboard">
      <ul className="app-nav__list">
        {LINKS.map((link) => (
          <li key={link.to}>
            <NavLink className="app-nav__link" to={link.to}>
              {link.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
