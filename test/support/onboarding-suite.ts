import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DocumentType } from '../../src/modules/onboarding/onboarding.schemas.js';
import type { TestApp } from './app.js';
import { type FileSpec, form, PNG_BYTES, representativeFields } from './factories.js';
import type { ApiResponse } from './http.js';
import { adminHeaders } from './partners.js';
import { ADMIN_PARTNERS, BUSINESS_INFO, DOCUMENTS, REPRESENTATIVE, SUBMIT } from './paths.js';

/** CONTRACT 3.4, written out here rather than read from the code under test. */
export const CONTRACT_CHECKLISTS = {
  limited_liability: ['cac_certificate', 'memart', 'valid_id'],
  public_limited: ['cac_certificate', 'memart', 'cac_status_report', 'board_resolution', 'valid_id'],
  sole_proprietorship: ['cac_certificate', 'cac_status_report', 'valid_id', 'proof_of_address'],
  partnership: ['cac_certificate', 'cac_status_report', 'valid_id', 'proof_of_address'],
  incorporated_trustees: ['cac_certificate', 'constitution', 'scuml_certificate', 'valid_id'],
} as const;
export type ContractBusinessType = keyof typeof CONTRACT_CHECKLISTS;
export const CONTRACT_BUSINESS_TYPES = Object.keys(CONTRACT_CHECKLISTS) as ContractBusinessType[];
export const CONTRACT_DOCUMENT_TYPES = [
  ...new Set([...Object.values(CONTRACT_CHECKLISTS).flat(), 'tin_certificate', 'other']),
];

/** POST /representative with the default (sandbox-passing) fields and a PNG id_file unless told otherwise. */
export function postRepresentative(
  t: Pick<TestApp, 'api'>,
  token: string,
  overrides: Record<string, string> = {},
  files: Record<string, FileSpec> = { id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' } },
): Promise<ApiResponse> {
  return t.api.request('POST', REPRESENTATIVE, {
    token,
    body: form(representativeFields(overrides), files),
  });
}

export function postDocument(
  t: Pick<TestApp, 'api'>,
  token: string,
  fields: Record<string, string>,
  files: Record<string, FileSpec> = {},
): Promise<ApiResponse> {
  return t.api.request('POST', DOCUMENTS, { token, body: form(fields, files) });
}

export async function profileOf(t: Pick<TestApp, 'api'>, token: string) {
  const response = await t.api.get(BUSINESS_INFO, { token });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

export async function setBusinessType(t: Pick<TestApp, 'api'>, token: string, businessType: string) {
  const response = await t.api.put(BUSINESS_INFO, { business_type: businessType }, { token });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

export async function submit(t: Pick<TestApp, 'api'>, token: string): Promise<ApiResponse> {
  return t.api.post(SUBMIT, undefined, { token });
}

/** The admin file endpoint answers raw bytes, not JSON, so it is fetched directly. */
export async function downloadFile(t: Pick<TestApp, 'url'>, companyId: number, documentId: string) {
  const response = await fetch(`${t.url}${ADMIN_PARTNERS}/${companyId}/documents/${documentId}/file`, {
    headers: adminHeaders,
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** Every file stored under DATA_DIR/files, as paths relative to that folder. */
export function storedFiles(t: Pick<TestApp, 'dataDir'>): string[] {
  const root = path.join(t.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((entry) =>
    statSync(path.join(root, entry)).isFile(),
  );
}

export const readStoredFile = (t: Pick<TestApp, 'dataDir'>, key: string): Buffer =>
  readFileSync(path.join(t.dataDir, 'files', key));

/**
 * Moves the app's clock so that it reads `iso` now; returns a function that moves it back.
 * Sessions are clock-based, so create partners after pinning the clock.
 */
export function pinClock(t: Pick<TestApp, 'clock'>, iso: string): () => void {
  const delta = Date.parse(iso) - t.clock.now();
  t.clock.advance(delta);
  return () => t.clock.advance(-delta);
}

/** YYYY-MM-DD of a UTC date `years` years and `days` days before the app clock's today. */
export function dateBefore(t: Pick<TestApp, 'clock'>, years: number, days = 0): string {
  const now = new Date(t.clock.now());
  const date = new Date(Date.UTC(now.getUTCFullYear() - years, now.getUTCMonth(), now.getUTCDate() - days));
  return date.toISOString().slice(0, 10);
}

/** The partner's current documents straight from the database. */
export function currentDocuments(t: Pick<TestApp, 'db'>, companyId: number, documentType?: DocumentType) {
  let query = t.db
    .selectFrom('documents')
    .selectAll()
    .where('partner_id', '=', companyId)
    .where('superseded_at', 'is', null);
  if (documentType) query = query.where('document_type', '=', documentType);
  return query.execute();
}

export function auditActions(t: Pick<TestApp, 'db'>, companyId: number) {
  return t.db
    .selectFrom('audit_events')
    .selectAll()
    .where('partner_id', '=', companyId)
    .orderBy('id')
    .execute();
}

export function outboxEvents(t: Pick<TestApp, 'db'>, companyId: number) {
  return t.db
    .selectFrom('outbox_events')
    .selectAll()
    .where('partner_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function kycChecks(t: Pick<TestApp, 'db'>, companyId: number) {
  return t.db
    .selectFrom('kyc_checks')
    .selectAll()
    .where('partner_id', '=', companyId)
    .orderBy('id')
    .execute();
}
