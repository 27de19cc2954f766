import { Navigate, Outlet } from 'react-router';
import { LinkTabs } from '@/components/ui/link-tabs';
import { PageHeader } from '@/components/ui/page-header';
import { useAccess } from '@/lib/partner-roles';
import { usePartner } from '../signed-in-layout';

const TABS = [
  { href: '/developers/api-keys', label: 'API keys' },
  { href: '/developers/webhooks', label: 'Webhooks' },
  { href: '/developers/events', label: 'Events' },
];

/** /developers/*: what a partner's engineers need, one tab each (API keys for the roles that manage them). */
export function DevelopersLayout() {
  const partner = usePartner();
  const keys = useAccess('keys');
  const tabs = keys.allowed ? TABS : TABS.filter((tab) => tab.href !== '/developers/api-keys');
  return (
    <div>
      <PageHeader
        title="Developers"
        description={`Connect your backend to the ${partner.session.environment === 'live' ? 'live' : 'sandbox'} environment: keys, webhooks and the events they carry.`}
      />
      <LinkTabs label="Developer settings" tabs={tabs}>
        <Outlet context={partner} />
      </LinkTabs>
    </div>
  );
}

/** /developers: the first tab the role has. */
export function DevelopersIndex() {
  const keys = useAccess('keys');
  return <Navigate to={keys.allowed ? '/developers/api-keys' : '/developers/webhooks'} replace />;
}
