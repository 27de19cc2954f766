import assert from 'node:assert/strict';
import type { Api } from './http.js';
import { OPENAPI, OPERATOR_OPENAPI } from './paths.js';

// biome-ignore lint/suspicious/noExplicitAny: the documents are arbitrary JSON.
export type OpenApi = { paths: Record<string, Record<string, any>>; components?: any; [key: string]: any };

/**
 * The partners' and the operator's OpenAPI documents as served, and both together (`all`: every
 * operation the server documents, each under its own path).
 */
export async function apiDocuments(t: {
  api: Api;
}): Promise<{ partner: OpenApi; operator: OpenApi; all: OpenApi }> {
  const [partner, operator] = await Promise.all(
    [OPENAPI, OPERATOR_OPENAPI].map(async (path) => {
      const response = await t.api.get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      return response.body as unknown as OpenApi;
    }),
  );
  const all = {
    ...partner!,
    paths: { ...partner!.paths, ...operator!.paths },
    components: {
      ...partner!.components,
      schemas: { ...partner!.components?.schemas, ...operator!.components?.schemas },
    },
  };
  return { partner: partner!, operator: operator!, all };
}
