import { useInfiniteQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-aria-components';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DateTime } from '@/components/ui/date-time';
import { QueryView } from '@/components/ui/query-view';
import { UserText } from '@/components/ui/user-text';
import { auditTrailQuery } from '../api/audit-events';
import { actionLabel, actorLabel, eventDetails } from './describe-event';
import './audit.css';

/** A partner's history from the audit trail, newest first: who did what, when. */
export function AuditTrail({ companyId }: { companyId: number }) {
  const headingId = useId();
  const trail = useInfiniteQuery(auditTrailQuery(companyId));
  return (
    <Card labelledBy={headingId} className="audit-trail">
      <div className="audit-trail__head">
        <h2 id={headingId}>History</h2>
        <Link className="audit-trail__all" href={`/audit?company_id=${companyId}`}>
          Open in the audit log
        </Link>
      </div>
      <QueryView query={trail} loading="Loading the history…">
        {(data) => {
          const events = data.pages.flatMap((page) => page.items);
          return events.length === 0 ? (
            <p className="muted">Nothing recorded yet.</p>
          ) : (
            <ol className="audit-trail__list">
              {events.map((event) => (
                <li key={event.id} className="audit-trail__item" data-actor={event.actor.type}>
                  <div className="audit-trail__when">
                    <DateTime value={event.created_at} variant="relative" />
                  </div>
                  <div className="audit-trail__what">
                    <p className="audit-trail__action">{actionLabel(event.action)}</p>
                    <p className="audit-trail__actor">
                      by <UserText>{actorLabel(event.actor)}</UserText>
                    </p>
                    {eventDetails(event).map((detail) => (
                      <p key={detail.key} className="audit-trail__detail">
                        {detail.content}
                      </p>
                    ))}
                  </div>
                </li>
              ))}
            </ol>
          );
        }}
      </QueryView>
      {trail.hasNextPage ? (
        <Button
          variant="secondary"
          size="small"
          className="audit-trail__more"
          isPending={trail.isFetchingNextPage}
          onPress={() => trail.fetchNextPage()}
        >
          Show older events
        </Button>
      ) : null}
    </Card>
  );
}
