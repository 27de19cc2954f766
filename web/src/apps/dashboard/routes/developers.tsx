import { Outlet } from 'react-router';
import { LinkTabs } from '@/components/ui/link-tabs';
import { PageHeader } from '@/components/ui/page-header';
import { usePartner } from '../signed-in-layout';

const TABS = [
  { href: '/developers/api-keys', label: 'API keys' },
  { href: '/developers/webhooks', label: 'Webhooks' },
  { href: '/developers/events', label: 'Events' },
];

/** /developers/*: what a partner's engineers need, one tab each. */
export function DevelopersLayout() {
  const partner = usePartner();
  return (
    <div>
      <PageHeader
        title="Developers"
        description={`Connect your backend to the ${partner.session.environment === 'live' ? 'live' : 'sandbox'} environment: keys, webhooks and the events they carry.`}
      />
      <LinkTabs label="Developer settings" tabs={TABS}>
        <Outlet context={partner} />
      </LinkTabs>
    </div>
  );
}
