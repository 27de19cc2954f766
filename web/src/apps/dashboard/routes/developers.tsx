import { Outlet } from 'react-router';
import { LinkTabs } from '@/components/ui/link-tabs';
import { PageHeader } from '@/components/ui/page-header';
import { ApiKeysPage } from '@/features/dashboard/api-keys/components/api-keys-page';
import { EventsPage } from '@/features/dashboard/webhooks/components/events-page';
import { WebhooksPage } from '@/features/dashboard/webhooks/components/webhooks-page';
import { usePartner } from '../layouts';

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

export function ApiKeysRoute() {
  const { session, profile } = usePartner();
  return (
    <ApiKeysPage environment={session.environment} liveAllowed={profile?.onboarding_status === 'active'} />
  );
}

export function WebhooksRoute() {
  const { session } = usePartner();
  return <WebhooksPage environment={session.environment} />;
}

export function EventsRoute() {
  return <EventsPage />;
}
