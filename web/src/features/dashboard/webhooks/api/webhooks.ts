import { ApiError } from '@baas/sdk';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@/lib/api/api-error';
import { partnerApi } from '@/lib/api/partner-api';
import type { EventType } from '@/lib/api/partner-types';
import { partnerKeys } from '@/lib/partner-query-keys';
import type { DeliveryStatus } from '../event-labels';

const WEBHOOK = '/baas/api/v1/services/partner/settings/webhook';
const EVENTS = '/baas/api/v1/services/events';

/** This environment's endpoint (without its secret), or null while none is set (the API answers 404). */
export const webhookQuery = queryOptions({
  queryKey: partnerKeys.webhook,
  queryFn: async ({ signal }) => {
    try {
      return await unwrap(partnerApi.GET(WEBHOOK, { signal }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  },
});

/** Sets the URL; the answer carries the signing secret (new on the first set, kept on a change). */
export function useSetWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (url: string) => unwrap(partnerApi.PUT(WEBHOOK, { body: { url } })),
    onSuccess: ({ secret: _secret, ...endpoint }) => queryClient.setQueryData(partnerKeys.webhook, endpoint),
  });
}

/** A new secret; the previous one keeps signing for 24 hours beside it. */
export function useRotateSecret() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(partnerApi.POST(`${WEBHOOK}/rotate-secret`)),
    onSuccess: ({ secret: _secret, ...endpoint }) => queryClient.setQueryData(partnerKeys.webhook, endpoint),
  });
}

/** One page of the delivery log, every attempt newest first. */
export const deliveriesQuery = (cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.deliveries, { cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(`${WEBHOOK}/deliveries`, {
          params: { query: { limit: 20, ...(cursor ? { cursor } : {}) } },
          signal,
        }),
      ),
  });

/** Sends the attempt's event again now; answers with the new attempt. */
export function useRetryDelivery() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(partnerApi.POST(`${WEBHOOK}/deliveries/{id}/retry`, { params: { path: { id } } })),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: partnerKeys.deliveries });
      await queryClient.invalidateQueries({ queryKey: partnerKeys.events });
    },
  });
}

/** Sends a webhook.test event to the endpoint now; answers with its attempt (the receiver's answer). */
export function useSendTestEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(partnerApi.POST(`${WEBHOOK}/test`)),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: partnerKeys.deliveries });
      await queryClient.invalidateQueries({ queryKey: partnerKeys.events });
    },
  });
}

/** Every attempt of one event (its delivery log), newest first: the 100 an event page shows. */
export const eventDeliveriesQuery = (eventId: string) =>
  queryOptions({
    queryKey: [...partnerKeys.deliveries, { eventId }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(`${WEBHOOK}/deliveries`, {
          params: { query: { limit: 100, event_id: eventId } },
          signal,
        }),
      ),
  });

export interface EventFilters {
  type: EventType | undefined;
  deliveryStatus: DeliveryStatus | undefined;
}

/** One page of the events of the last 30 days, newest first, optionally of one type and delivery status. */
export const eventsQuery = ({ type, deliveryStatus }: EventFilters, cursor: string | undefined) =>
  queryOptions({
    queryKey: [...partnerKeys.events, 'list', { type, deliveryStatus, cursor }],
    queryFn: ({ signal }) =>
      unwrap(
        partnerApi.GET(EVENTS, {
          params: {
            query: {
              limit: 20,
              ...(type ? { type } : {}),
              ...(deliveryStatus ? { delivery_status: deliveryStatus } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
          signal,
        }),
      ),
  });

/** One event with its payload and delivery status. */
export const eventQuery = (id: string) =>
  queryOptions({
    queryKey: [...partnerKeys.events, 'one', id],
    queryFn: ({ signal }) => unwrap(partnerApi.GET(`${EVENTS}/{id}`, { params: { path: { id } }, signal })),
  });

/** Queues one more delivery of the event to the current endpoint (202). */
export function useRedeliverEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(partnerApi.POST(`${EVENTS}/{id}/redeliver`, { params: { path: { id } } })),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: partnerKeys.events });
      await queryClient.invalidateQueries({ queryKey: partnerKeys.deliveries });
    },
  });
}
