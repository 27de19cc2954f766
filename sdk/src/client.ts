import createClient from 'openapi-fetch';
import type { Api } from './core/resource.js';
import type { paths } from './generated/partner.js';
import { type RetryEvent, retryingFetch } from './internal/retry.js';
import {
  ApiKeys,
  Banks,
  Events,
  Onboarding,
  Team,
  Transfers,
  VirtualAccounts,
  WebhookDeliveries,
  WebhookEndpointResource,
} from './resources/index.js';
import { verifyWebhook } from './webhooks.js';

export interface BaasClientOptions {
  /** The server's origin (e.g. `https://api.example.com`); the API paths carry their /baas/api/v1 prefix. */
  baseUrl: string;
  /** A session token (from `onboarding.login`) or an API key (`sk_sandbox_…`, `sk_live_…`). */
  token?: string | undefined;
  /** Performs each HTTP attempt (default: the global fetch). */
  fetch?: ((request: Request, init?: RequestInit) => Promise<Response>) | undefined;
  /** Retries after the first attempt (default 3; 0 turns retries off). */
  maxRetries?: number | undefined;
  /** First backoff step in ms (default 250), doubled on each retry, with jitter. */
  retryBaseMs?: number | undefined;
  /** Cap of one backoff step in ms (default 8000). */
  retryMaxMs?: number | undefined;
  /** Longest Retry-After (ms) the SDK waits for; longer ones are thrown as ApiError (default 60000). */
  maxRetryAfterMs?: number | undefined;
  /** Per attempt, in ms (default 60000; 0: none). A time-out is retried like a network error. */
  timeoutMs?: number | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
  /** Called before each retry (for logs and metrics). */
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

/**
 * The partner API. Every method resolves to the `data` of the success envelope and throws ApiError
 * for an error answer, ConnectionError when no answer came after the retries.
 */
export class BaasClient {
  /** The credential sent as `Authorization: Bearer …` (set by `onboarding.login`, cleared by logout). */
  token: string | undefined;
  /** The typed openapi-fetch client underneath (every path of the document), for anything not wrapped. */
  readonly api: Api;

  readonly onboarding: Onboarding;
  readonly apiKeys: ApiKeys;
  readonly team: Team;
  readonly virtualAccounts: VirtualAccounts;
  readonly webhookEndpoint: WebhookEndpointResource;
  readonly webhookDeliveries: WebhookDeliveries;
  readonly events: Events;
  readonly banks: Banks;
  readonly transfers: Transfers;
  /** Verifies deliveries: the same function as the package's `webhooks.verify`. */
  readonly webhooks = { verify: verifyWebhook };

  constructor(options: BaasClientOptions) {
    if (!options?.baseUrl) throw new TypeError('BaasClient: baseUrl is required');
    this.token = options.token;
    const transport = retryingFetch({
      maxRetries: options.maxRetries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 250,
      retryMaxMs: options.retryMaxMs ?? 8000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: options.fetch ?? ((request, requestInit) => globalThis.fetch(request, requestInit)),
      onRetry: options.onRetry,
    });
    this.api = createClient<paths>({
      baseUrl: options.baseUrl,
      fetch: transport,
      ...(options.headers ? { headers: options.headers } : {}),
    });
    this.api.use({
      onRequest: ({ request }) => {
        if (this.token && !request.headers.has('authorization')) {
          request.headers.set('authorization', `Bearer ${this.token}`);
        }
        return request;
      },
    });
    this.onboarding = new Onboarding(this);
    this.apiKeys = new ApiKeys(this);
    this.team = new Team(this);
    this.virtualAccounts = new VirtualAccounts(this);
    this.webhookEndpoint = new WebhookEndpointResource(this);
    this.webhookDeliveries = new WebhookDeliveries(this);
    this.events = new Events(this);
    this.banks = new Banks(this);
    this.transfers = new Transfers(this);
  }
}
