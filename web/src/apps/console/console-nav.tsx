import { NavLink } from 'react-router';

/** The console's sections; Operators only for admins. NavLink marks the current one (aria-current). */
export function ConsoleNav({ isAdmin }: { isAdmin: boolean }) {
  const links = [
    { to: '/review', label: 'Review queue' },
    { to: '/money-in', label: 'Money in' },
    { to: '/transfers', label: 'Transfers' },
    { to: '/reports/daily', label: 'Daily report' },
    { to: '/audit', label: 'Audit log' },
    ...(isAdmin ? [{ to: '/operators', label: 'Operators' }] : []),
  ];
  return (
    <nav className="app-nav" aria-label="Console">
      <ul className="app-nav__list">
        {links.map((link) => (
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
