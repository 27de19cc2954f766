import { useParams } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { EventPage } from '@/features/dashboard/webhooks/components/event-page';
import { APP_NAME } from '../layouts';
import { usePartner } from '../signed-in-layout';

/** The events API's id form (a webhook-id): anything else is no page at all. */
const EVENT_ID = /^msg_[0-9a-f]{32}$/;

export function EventRoute() {
  const { session } = usePartner();
  const { eventId = '' } = useParams();
  if (!EVENT_ID.test(eventId)) return <NotFoundPage appName={APP_NAME} />;
  return (
    <EventPage key={`${session.environment}:${eventId}`} id={eventId} environment={session.environment} />
  );
}
