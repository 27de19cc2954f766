import {
  APIResource,
  type CallOptions,
  type IdempotentCallOptions,
  init,
  PREFIX,
  post,
  unwrap,
} from '../core/resource.js';
import type {
  DeliveryAttempt,
  RotatedWebhookEndpoint,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../types.js';

/** The environment's webhook endpoint. */
export class WebhookEndpointResource extends APIResource {
  get(options?: CallOptions): Promise<WebhookEndpoint> {
    return unwrap(this.api.GET(`${PREFIX}/services/partner/settings/webhook`, init(options)));
  }

  /** Sets the URL; the answer carries the signing `secret` (`whsec_…`). */
  set(url: string, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    return unwrap(
      this.api.PUT(`${PREFIX}/services/partner/settings/webhook`, { body: { url }, ...init(options) }),
    );
  }

  delete(options?: CallOptions): Promise<WebhookEndpoint> {
    return unwrap(this.api.DELETE(`${PREFIX}/services/partner/settings/webhook`, init(options)));
  }

  /**
   * A new secret; the old one keeps signing beside it for 24 hours. A replay of the same
   * Idempotency-Key answers `secret: null`: the new secret is shown only in the first answer.
   */
  rotateSecret(options?: IdempotentCallOptions): Promise<RotatedWebhookEndpoint> {
    return unwrap(this.api.POST(`${PREFIX}/services/partner/settings/webhook/rotate-secret`, post(options)));
  }

  /**
   * Sends a `webhook.test` event to the endpoint now and answers with the attempt (`succeeded`,
   * `status_code`, `response_body_excerpt`); 409 when no endpoint is set.
   */
  sendTestEvent(options?: IdempotentCallOptions): Promise<DeliveryAttempt> {
    return unwrap(this.api.POST(`${PREFIX}/services/partner/settings/webhook/test`, post(options)));
  }
}
