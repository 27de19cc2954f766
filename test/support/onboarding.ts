import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { type FileSpec, form, PDF_BYTES, PNG_BYTES, representativeFields } from './factories.js';
import type { ApiResponse } from './http.js';
import { BUSINESS_INFO, DOCUMENTS, REPRESENTATIVE, SUBMIT } from './paths.js';

/**
 * The checklists of docs/partner-guide.md, "Onboarding: profile, representative, documents", written
 * out here rather than read from the code under test.
 */
export const GUIDE_CHECKLISTS = {
  limited_liability: ['cac_certificate', 'memart', 'valid_id'],
  public_limited: ['cac_certificate', 'memart', 'cac_status_report', 'board_resolution', 'valid_id'],
  sole_proprietorship: ['cac_certificate', 'cac_status_report', 'valid_id', 'proof_of_address'],
  partnership: ['cac_certificate', 'cac_status_report', 'valid_id', 'proof_of_address'],
  incorporated_trustees: ['cac_certificate', 'constitution', 'scuml_certificate', 'valid_id'],
} as const;
export type GuideBusinessType = keyof typeof GUIDE_CHECKLISTS;
export const GUIDE_BUSINESS_TYPES = Object.keys(GUIDE_CHECKLISTS) as GuideBusinessType[];
export const GUIDE_DOCUMENT_TYPES = [
  ...new Set([...Object.values(GUIDE_CHECKLISTS).flat(), 'tin_certificate', 'other']),
];

const ID_FILE: Record<string, FileSpec> = {
  id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' },
};

/** POST /representative with the default (sandbox-passing) fields and a PNG id_file unless told otherwise. */
export function postRepresentative(
  t: Pick<TestApp, 'api'>,
  token: string,
  overrides: Record<string, string> = {},
  files: Record<string, FileSpec> = ID_FILE,
): Promise<ApiResponse> {
  return t.api.request('POST', REPRESENTATIVE, {
    token,
    body: form(representativeFields(overrides), files),
  });
}

/** Saves the compliance representative for the first time (so that team members may be added). */
export async function addRepresentative(t: Pick<TestApp, 'api'>, token: string): Promise<void> {
  const response = await postRepresentative(t, token);
  assert.equal(response.status, 201, response.text);
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

/** Profile + representative (KYC passes) + every limited_liability document: ready to submit. */
export async function completeOnboarding(t: Pick<TestApp, 'api'>, token: string): Promise<void> {
  const profile = await t.api.put(
    BUSINESS_INFO,
    {
      business_type: 'limited_liability',
      rc_number: 'RC1234567',
      legal_business_name: 'Acme Payments Limited',
    },
    { token },
  );
  assert.equal(profile.status, 200, profile.text);
  const representative = await postRepresentative(t, token);
  assert.ok([200, 201].includes(representative.status), representative.text);
  assert.equal(representative.body.data.kyc.ok, true, representative.text);
  for (const documentType of ['cac_certificate', 'memart']) {
    const upload = await postDocument(
      t,
      token,
      { document_type: documentType },
      { file: { bytes: PDF_BYTES, name: `${documentType}.pdf` } },
    );
    assert.equal(upload.status, 201, upload.text);
  }
}
