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
import type { ApiKey, ApiKeyListOptions, ApiKeyPage, CreateApiKeyInput, CreatedApiKey } from '../types.js';

/** API keys (session tokens only). */
export class ApiKeys extends APIResource {
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
