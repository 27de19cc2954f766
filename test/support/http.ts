import assert from 'node:assert/strict';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T & Envelope;
  text: string;
}

export interface Envelope {
  status: 'success' | 'error';
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary payloads.
  data?: any;
  error_code?: string;
  errors?: Record<string, string[]>;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** Sent as is (string or FormData); otherwise `json` is serialized. */
  body?: string | FormData | Uint8Array;
  json?: unknown;
}

/** A thin HTTP client over fetch: every test speaks HTTP to the real server. */
export class Api {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | FormData | Uint8Array | undefined = options.body;
    if (body === undefined && options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} → ${response.status}: body is not JSON: ${text.slice(0, 300)}`);
    }
    return {
      status: response.status,
      headers: response.headers,
      body: parsed as Envelope & Record<string, unknown>,
      text,
    };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('POST', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  put(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('PUT', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  patch(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request('PATCH', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }
}

/**
 * Every page of a list endpoint, following next_cursor with `limit` items a page; checks that no
 * page is over the limit and that only the last one is short. `auth` is a bearer token or headers.
 */
export async function allPages<T = Record<string, unknown>>(
  t: { api: Api },
  url: string,
  auth: string | Record<string, string>,
  limit = 100,
): Promise<T[][]> {
  const access = typeof auth === 'string' ? { token: auth } : { headers: auth };
  const separator = url.includes('?') ? '&' : '?';
  const pages: T[][] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await t.api.get(`${url}${separator}${query}`, access);
    assert.equal(response.status, 200, `${url}: ${response.text}`);
    const items = response.body.data.items as T[];
    assert.ok(items.length <= limit, `page of ${items.length} over limit ${limit}`);
    pages.push(items);
    cursor = response.body.data.next_cursor as string | null;
    if (cursor === null) return pages;
    assert.equal(typeof cursor, 'string');
    assert.equal(items.length, limit, 'a page before the last one is full');
  }
  throw new Error(`${url}: pagination did not end`);
}

/** Every item of a list endpoint (see allPages). */
export async function listAll(
  t: { api: Api },
  url: string,
  auth: string | Record<string, string>,
  limit = 100,
  // biome-ignore lint/suspicious/noExplicitAny: list items as the API returns them.
): Promise<any[]> {
  return (await allPages(t, url, auth, limit)).flat();
}
