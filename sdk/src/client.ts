import createClient, { type Client } from 'openapi-fetch';
import { ApiError } from './errors.js';
import type { paths } from './generated/partner.js';
import { PageIterator } from './pagination.js';
import { type RetryEvent, retryingFetch } from './retry.js';
import type {
  ApiKey,
  ApiKeyListOptions,
  ApiKeyPage,
  CloseInput,
  CreateApiKeyInput,
  CreatedApiKey,
  CreateTeamMemberInput,
  CreateVirtualAccountInput,
  Credit,
  DeactivateInput,
  DeliveryAttempt,
  DeliveryListOptions,
  DocumentType,
  EnvironmentSetting,
  Event,
  EventListOptions,
  EventPage,
  LoginInput,
  OnboardingProfile,
  RegisteredPartner,
  RegisterInput,
  RepresentativeInput,
  RepresentativeResult,
  ResetPasswordInput,
  RotatedWebhookEndpoint,
  Session,
  SimulateCreditInput,
  Statement,
  StatementPeriod,
  TeamListOptions,
  TeamMember,
  TeamMemberPage,
  Transaction,
  TransactionListOptions,
  UpdateProfileInput,
  UpdateTeamMemberInput,
  UploadedDocument,
  VerifiedPartner,
  VerifyOtpInput,
  VirtualAccount,
  VirtualAccountListOptions,
  VirtualAccountPage,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './types.js';
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

/** Options every method takes. */
export interface CallOptions {
  /** Aborts the call (and its retries); the abort error is thrown as it is. */
  signal?: AbortSignal | undefined;
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
}

/** Options of a POST under /services/: its Idempotency-Key (default: a fresh UUID, kept across retries). */
export interface IdempotentCallOptions extends CallOptions {
  idempotencyKey?: string | undefined;
}

type Api = Client<paths>;

/** What a call of the typed client resolves to (openapi-fetch's result). */
interface Result {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The `data` of the success envelope(s) a call returns; void when the envelope has none. */
type DataOf<R extends Result> = EnvelopeData<Exclude<R['data'], undefined>>;
type EnvelopeData<E> = E extends { data: infer D } ? D : undefined;

const PREFIX = '/baas/api/v1';

/** Resolves a call to its envelope's `data`, or throws ApiError for any non-2xx answer. */
async function unwrap<R extends Result>(pending: Promise<R>): Promise<DataOf<R>> {
  const result = await pending;
  if (!result.response.ok || result.error !== undefined) throw ApiError.from(result.response, result.error);
  return (result.data as { data?: unknown } | undefined)?.data as DataOf<R>;
}

function init(options: CallOptions | undefined, idempotencyKey?: string) {
  const headers: Record<string, string> = { ...options?.headers };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return {
    headers,
    ...(options?.signal ? { signal: options.signal } : {}),
  };
}

function post(options: IdempotentCallOptions | undefined) {
  return init(options, options?.idempotencyKey);
}

/** The body of a multipart call, and a serializer that sends `form` instead. */
function multipart<Body>(fields: Body, form: FormData) {
  return { body: fields, bodySerializer: () => form };
}

function formOf(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) form.append(name, String(value));
  }
  return form;
}

function fileName(file: Blob, fallback: string): string {
  const name = (file as Partial<File>).name;
  return typeof name === 'string' && name !== '' ? name : fallback;
}

abstract class Resource {
  constructor(protected readonly client: BaasClient) {}
  protected get api(): Api {
    return this.client.api;
  }
}

/** Sign-up, sign-in and the onboarding application (session tokens only). */
export class Onboarding extends Resource {
  /** Creates the partner account and e-mails a 6-digit code (201). */
  register(body: RegisterInput, options?: CallOptions): Promise<RegisteredPartner> {
    return unwrap(this.api.POST(`${PREFIX}/client/onboarding/register`, { body, ...init(options) }));
  }

  verifyOtp(body: VerifyOtpInput, options?: CallOptions): Promise<VerifiedPartner> {
    return unwrap(this.api.POST(`${PREFIX}/client/onboarding/verify-otp`, { body, ...init(options) }));
  }

  async resendOtp(email: string, options?: CallOptions): Promise<void> {
    await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/resend-otp`, { body: { email }, ...init(options) }),
    );
  }

  /**
   * Signs in with a bearer session (the SDK's way; `session: 'cookie'` is for browser pages); this
   * client then sends the new session token (`client.token`).
   */
  async login(body: LoginInput, options?: CallOptions): Promise<Session> {
    const session = await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/login`, { body, ...init(options) }),
    );
    if (session.token !== null) this.client.token = session.token;
    return session;
  }

  /** Revokes the session token this client sends, and forgets it. */
  async logout(options?: CallOptions): Promise<void> {
    await unwrap(this.api.POST(`${PREFIX}/client/onboarding/logout`, init(options)));
    this.client.token = undefined;
  }

  async forgotPassword(email: string, options?: CallOptions): Promise<void> {
    await unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/password/forgot`, { body: { email }, ...init(options) }),
    );
  }

  async resetPassword(body: ResetPasswordInput, options?: CallOptions): Promise<void> {
    await unwrap(this.api.POST(`${PREFIX}/client/onboarding/password/reset`, { body, ...init(options) }));
  }

  /** The business profile, onboarding status, checklist and `requirements`. */
  profile(options?: CallOptions): Promise<OnboardingProfile> {
    return unwrap(this.api.GET(`${PREFIX}/client/onboarding/business-info`, init(options)));
  }

  updateProfile(body: UpdateProfileInput, options?: CallOptions): Promise<OnboardingProfile> {
    return unwrap(this.api.PUT(`${PREFIX}/client/onboarding/business-info`, { body, ...init(options) }));
  }

  /**
   * Saves the compliance representative and runs KYC (the result is in `kyc`). The ID document is
   * `idFile` (PDF, JPEG or PNG, ≤ 5 MiB) or, without it, `fields.id_file_url`.
   */
  saveRepresentative(
    fields: RepresentativeInput,
    idFile?: Blob,
    options?: CallOptions,
  ): Promise<RepresentativeResult> {
    const form = formOf(fields);
    if (idFile) form.append('id_file', idFile, fileName(idFile, 'id'));
    return unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/representative`, {
        ...multipart(fields, form),
        ...init(options),
      }),
    );
  }

  /** Uploads a document of `documentType`: a file (Blob/File) or the https URL of a hosted one. */
  uploadDocument(
    documentType: DocumentType,
    source: Blob | string,
    options?: CallOptions,
  ): Promise<UploadedDocument> {
    const fields =
      typeof source === 'string'
        ? { document_type: documentType, file_url: source }
        : { document_type: documentType };
    const form = formOf(fields);
    if (typeof source !== 'string') form.append('file', source, fileName(source, documentType));
    return unwrap(
      this.api.POST(`${PREFIX}/client/onboarding/documents`, {
        ...multipart(fields, form),
        ...init(options),
      }),
    );
  }

  /** Submits the application for review (409 ONBOARDING_INCOMPLETE lists what is missing in `errors`). */
  submit(options?: CallOptions): Promise<OnboardingProfile> {
    return unwrap(this.api.POST(`${PREFIX}/client/onboarding/submit`, init(options)));
  }

  /** Switches this session to `sandbox` or `live` (live needs an approved partner). */
  switchEnvironment(
    environment: EnvironmentSetting['environment'],
    options?: CallOptions,
  ): Promise<EnvironmentSetting> {
    return unwrap(
      this.api.PUT(`${PREFIX}/client/onboarding/environment`, { body: { environment }, ...init(options) }),
    );
  }
}

/** API keys (session tokens only). */
export class ApiKeys extends Resource {
  /**
   * The returned `key` is shown this once. It is null in an idempotent replay (a retry after the
   * first answer was lost): the secret is never stored, so revoke that key by id and create another.
   */
  create(body: CreateApiKeyInput, options?: IdempotentCallOptions): Promise<CreatedApiKey> {
    return unwrap(this.api.POST(`${PREFIX}/services/partner/settings/api-keys`, { body, ...post(options) }));
  }

  list(filters: ApiKeyListOptions = {}, options?: CallOptions): PageIterator<ApiKey> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: ApiKeyListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<ApiKeyPage> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/partner/settings/api-keys`, { params: { query }, ...init(options) }),
    );
  }

  revoke(id: string, options?: CallOptions): Promise<ApiKey> {
    return unwrap(
      this.api.DELETE(`${PREFIX}/services/partner/settings/api-keys/{id}`, {
        params: { path: { id } },
        ...init(options),
      }),
    );
  }
}

/** Team members (partner-wide). */
export class Team extends Resource {
  create(body: CreateTeamMemberInput, options?: IdempotentCallOptions): Promise<TeamMember> {
    return unwrap(this.api.POST(`${PREFIX}/services/partner/settings/team`, { body, ...post(options) }));
  }

  list(filters: TeamListOptions = {}, options?: CallOptions): PageIterator<TeamMember> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: TeamListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<TeamMemberPage> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/partner/settings/team`, { params: { query }, ...init(options) }),
    );
  }

  get(memberId: string, options?: CallOptions): Promise<TeamMember> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/partner/settings/team/{memberId}`, {
        params: { path: { memberId } },
        ...init(options),
      }),
    );
  }

  update(memberId: string, body: UpdateTeamMemberInput, options?: CallOptions): Promise<TeamMember> {
    return unwrap(
      this.api.PUT(`${PREFIX}/services/partner/settings/team/{memberId}`, {
        params: { path: { memberId } },
        body,
        ...init(options),
      }),
    );
  }

  delete(memberId: string, options?: CallOptions): Promise<TeamMember> {
    return unwrap(
      this.api.DELETE(`${PREFIX}/services/partner/settings/team/{memberId}`, {
        params: { path: { memberId } },
        ...init(options),
      }),
    );
  }
}

/** Virtual accounts (NUBAN) in the credential's environment. */
export class VirtualAccounts extends Resource {
  /**
   * Issues an account to an end user. Sent with an Idempotency-Key (yours or a fresh UUID), so the
   * SDK's retries never open two. A second account for the same e-mail: ApiError 409
   * VIRTUAL_ACCOUNT_EXISTS with the existing account in `data`.
   */
  create(body: CreateVirtualAccountInput, options?: IdempotentCallOptions): Promise<VirtualAccount> {
    return unwrap(this.api.POST(`${PREFIX}/services/virtual-account/create`, { body, ...post(options) }));
  }

  get(accountNumber: string, options?: CallOptions): Promise<VirtualAccount> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/virtual-account/{account_number}`, {
        params: { path: { account_number: accountNumber } },
        ...init(options),
      }),
    );
  }

  /** Every account matching `filters` (status, email, created_from, created_to; limit = page size). */
  list(filters: VirtualAccountListOptions = {}, options?: CallOptions): PageIterator<VirtualAccount> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: VirtualAccountListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<VirtualAccountPage> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/virtual-account`, { params: { query }, ...init(options) }),
    );
  }

  /** Every credit of the account, newest first. */
  transactions(
    accountNumber: string,
    filters: TransactionListOptions = {},
    options?: CallOptions,
  ): PageIterator<Transaction> {
    return new PageIterator((cursor) =>
      unwrap(
        this.api.GET(`${PREFIX}/services/virtual-account/{account_number}/transactions`, {
          params: { path: { account_number: accountNumber }, query: { ...filters, cursor } },
          ...init(options),
        }),
      ),
    );
  }

  /** Sandbox only: credits the account (`amount` in naira, ≤ 2 decimals). */
  simulateCredit(
    accountNumber: string,
    body: SimulateCreditInput,
    options?: IdempotentCallOptions,
  ): Promise<Credit> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/simulate-credit`, {
        params: { path: { account_number: accountNumber } },
        body,
        ...post(options),
      }),
    );
  }

  /** active → inactive: credits are refused until it is reactivated. */
  deactivate(
    accountNumber: string,
    body: DeactivateInput,
    options?: IdempotentCallOptions,
  ): Promise<VirtualAccount> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/deactivate`, {
        params: { path: { account_number: accountNumber } },
        body,
        ...post(options),
      }),
    );
  }

  reactivate(accountNumber: string, options?: IdempotentCallOptions): Promise<VirtualAccount> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/reactivate`, {
        params: { path: { account_number: accountNumber } },
        ...post(options),
      }),
    );
  }

  /** → closed, for good: the number is never issued again. */
  close(accountNumber: string, body: CloseInput, options?: IdempotentCallOptions): Promise<VirtualAccount> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/close`, {
        params: { path: { account_number: accountNumber } },
        body,
        ...post(options),
      }),
    );
  }

  /** Statement of whole UTC days `from`–`to` (YYYY-MM-DD, ≤ 366 days): balances and transactions. */
  statement(accountNumber: string, period: StatementPeriod, options?: CallOptions): Promise<Statement> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/virtual-account/{account_number}/statement`, {
        params: { path: { account_number: accountNumber }, query: period },
        ...init(options),
      }),
    );
  }

  /** The same statement's transactions as CSV text (header row; naira with 2 decimals). */
  async statementCsv(accountNumber: string, period: StatementPeriod, options?: CallOptions): Promise<string> {
    const result = await this.api.GET(`${PREFIX}/services/virtual-account/{account_number}/statement`, {
      params: { path: { account_number: accountNumber }, query: period },
      parseAs: 'text',
      ...init(options),
      headers: { ...options?.headers, accept: 'text/csv' },
    });
    if (!result.response.ok || result.error !== undefined) throw ApiError.from(result.response, result.error);
    return result.data ?? '';
  }
}

/** The environment's webhook endpoint. */
export class WebhookEndpointResource extends Resource {
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
}

/** The delivery log of the environment's webhooks. */
export class WebhookDeliveries extends Resource {
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

/** Events (kept 30 days), newest first. */
export class Events extends Resource {
  /** Every event matching `filters` (type, created_from, created_to; limit = page size). */
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
  }
}
