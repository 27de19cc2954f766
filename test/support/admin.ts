import assert from 'node:assert/strict';
import { TEST_ADMIN_KEY, type TestApp } from './app.js';
import { listAll } from './http.js';
import { ADMIN_PARTNERS, adminDocumentUrl, adminPartnerUrl } from './paths.js';

/** The operator's side (the back office, authenticated with ADMIN_API_KEY). */

export const adminHeaders = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

export const adminGet = (t: Pick<TestApp, 'api'>, url: string, headers: Record<string, string> = {}) =>
  t.api.get(url, { headers: { ...adminHeaders, ...headers } });

export const adminPost = (
  t: Pick<TestApp, 'api'>,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => t.api.post(url, body, { headers: { ...adminHeaders, ...headers } });

/** The operator's record of a partner (GET /admin/partners/{company_id}). */
export async function partnerRecord(t: Pick<TestApp, 'api'>, companyId: number) {
  const response = await adminGet(t, adminPartnerUrl(companyId));
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

/** A partner as the operator's list shows it. */
export interface QueueItem {
  company_id: number;
  onboarding_status: string;
  pending_review: string[];
}

/** Every partner of the operator's list with `?pending_review=` true or false, by company id. */
export async function reviewQueue(
  t: Pick<TestApp, 'api'>,
  pendingReview: boolean,
): Promise<Map<number, QueueItem>> {
  const items: QueueItem[] = await listAll(
    t,
    `${ADMIN_PARTNERS}?pending_review=${pendingReview}`,
    adminHeaders,
  );
  return new Map(items.map((item) => [item.company_id, item]));
}

export interface AdminDocument {
  id: string;
  document_type: string;
  status: string;
  current: boolean;
}

/** The operator's view of the partner's current document of `documentType`. */
export async function currentAdminDocument(
  t: Pick<TestApp, 'api'>,
  companyId: number,
  documentType: string,
): Promise<AdminDocument> {
  const record = await partnerRecord(t, companyId);
  const document = (record.documents as AdminDocument[]).find(
    (candidate) => candidate.current && candidate.document_type === documentType,
  );
  assert.ok(document, `no current ${documentType}`);
  return document;
}

/** The operator approves every current document and then the application. */
export async function approvePartner(t: Pick<TestApp, 'api'>, companyId: number): Promise<void> {
  const record = await partnerRecord(t, companyId);
  for (const document of record.documents as AdminDocument[]) {
    if (!document.current || document.status !== 'pending_review') continue;
    const approved = await adminPost(t, adminDocumentUrl(companyId, document.id, 'approve'));
    assert.equal(approved.status, 200, approved.text);
  }
  const approved = await adminPost(t, adminPartnerUrl(companyId, 'approve'));
  assert.equal(approved.status, 200, approved.text);
}

/** The operator rejects the application for good. */
export async function rejectPartner(
  t: Pick<TestApp, 'api'>,
  companyId: number,
  reason = 'The business is out of scope.',
): Promise<void> {
  const rejected = await adminPost(t, adminPartnerUrl(companyId, 'reject'), { reason });
  assert.equal(rejected.status, 200, rejected.text);
}

/** The admin file endpoint answers raw bytes, not JSON, so it is fetched directly. */
export async function downloadFile(t: Pick<TestApp, 'url'>, companyId: number, documentId: string) {
  const response = await fetch(`${t.url}${adminDocumentUrl(companyId, documentId, 'file')}`, {
    headers: adminHeaders,
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}
