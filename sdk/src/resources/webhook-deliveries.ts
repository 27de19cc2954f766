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
import type { DeliveryAttempt, DeliveryListOptions } from '../types.js';

/** The delivery log of the environment's webhooks. */
export class WebhookDeliveries extends APIResource {
  list(filters: DeliveryListOptions = {}, options?: CallOptions): PageIterator<DeliveryAttempt> {
    return new PageIterator((cursor) =>
      unwrap(
        this.api.GET(`${PREFIX}/services/partner/settings/webhook/deliveries`, {
          params: { query: { ...filters, cursor } },
          ...init(options),
        }),
      ),
    );
  }

  /** Sends that attempt's event again now (a manual attempt). */
  retry(attemptId: string, options?: IdempotentCallOptions): Promise<DeliveryAttempt> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/partner/settings/webhook/deliveries/{id}/retry`, {
        params: { path: { id: attemptId } },
        ...post(options),
      }),
    );
  }
}
