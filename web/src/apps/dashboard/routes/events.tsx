import { EventsPage } from '@/features/dashboard/webhooks/components/events-page';

export function EventsRoute() {
  return <EventsPage />;
}
