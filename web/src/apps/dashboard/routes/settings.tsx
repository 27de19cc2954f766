import { Outlet } from 'react-router';
import { LinkTabs } from '@/components/ui/link-tabs';
import { PageHeader } from '@/components/ui/page-header';
import { usePartner } from '../signed-in-layout';

const TABS = [
  { href: '/settings/users', label: 'Users' },
  { href: '/settings/officers', label: 'Directors and officers' },
  { href: '/settings/security', label: 'Security' },
];

/**
 * /settings/*: who may sign in to the dashboard (users and their roles), and the directors and
 * officers of the business on file for compliance (people, not logins).
 */
export function SettingsLayout() {
  const partner = usePartner();
  return (
    <div>
      <PageHeader
        title="Settings"
        description="Who can sign in to this dashboard and how, and the directors and officers of your business on file with us."
      />
      <LinkTabs label="Settings" tabs={TABS}>
        <Outlet context={partner} />
      </LinkTabs>
    </div>
  );
}
