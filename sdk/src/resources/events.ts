import { PageIterator } from '../core/pagination.js';
import {
  APIResource,
  type CallOptions,
  type IdempotentCallOptions,
  init,
  PREFIX,
  post,
  unwrap,
} from '../core/resource.js';
import type { Event, EventListOptions, EventPage } from '../types.js';

/** Events (kept 30 days), newest first. */
export class Events extends APIResource {
  /** Every event matching `filters` (type, delivery_status, created_from, created_to; limit = page size). */
  list(filters: EventListOptions = {}, options?: CallOptions): PageIterator<Event> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: EventListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<EventPage> {
    return unwrap(this.api.GET(`${PREFIX}/services/events`, { params: { query }, ...init(options) }));
  }

  get(eventId: string, options?: CallOptions): Promise<Event> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/events/{id}`, { params: { path: { id: eventId } }, ...init(options) }),
    );
  }

  /** Queues one more delivery to the current endpoint (same webhook-id); 409 when none is set. */
  redeliver(eventId: string, options?: IdempotentCallOptions): Promise<Event> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/events/{id}/redeliver`, {
        params: { path: { id: eventId } },
        ...post(options),
      }),
    );
  }
}
