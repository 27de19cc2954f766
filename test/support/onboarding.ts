import assert from 'node:assert/strict';
import { TEST_ADMIN_KEY, type TestApp } from './app.js';
import { adminDocumentUrl, adminPartnerUrl, BUSINESS_INFO, DOCUMENTS, REPRESENTATIVE } from './paths.js';

/** Smallest valid files of each accepted type (the service decides types by these bytes). */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
export const PDF_BYTES = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
export const JPEG_BYTES = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

export function representativeFields(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    first_name: 'Ada',
    last_name: 'Obi',
    email: 'ada.obi@acme.ng',
    phone: '+2348031234567',
    dob: '1985-04-12',
    gender: 'female',
    designation: 'director',
    bvn: '22123456789',
    id_type: 'national_id',
    address: '12 Marina, Lagos',
    ...overrides,
  };
}

/** A multipart form: text fields plus optional named files. */
export function form(
  fields: Record<string, string>,
  files: Record<string, { bytes: Buffer; name?: string; type?: string }> = {},
): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const [name, file] of Object.entries(files)) {
    data.append(
      name,
      new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }),
      file.name ?? 'upload.bin',
    );
  }
  return data;
}

export const adminHeaders = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

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
  const representative = await t.api.request('POST', REPRESENTATIVE, {
    token,
    body: form(representativeFields(), { id_file: { bytes: PNG_BYTES, name: 'id.png', type: 'image/png' } }),
  });
  assert.ok([200, 201].includes(representative.status), representative.text);
  assert.equal(representative.body.data.kyc.ok, true, representative.text);
  for (const documentType of ['cac_certificate', 'memart']) {
    const upload = await t.api.request('POST', DOCUMENTS, {
      token,
      body: form(
        { document_type: documentType },
        { file: { bytes: PDF_BYTES, name: `${documentType}.pdf` } },
      ),
    });
    assert.equal(upload.status, 201, upload.text);
  }
}

/** The operator approves every current document and then the application. */
export async function approvePartner(t: Pick<TestApp, 'api'>, companyId: number): Promise<void> {
  const record = await t.api.get(adminPartnerUrl(companyId), { headers: adminHeaders });
  assert.equal(record.status, 200, record.text);
  for (const document of record.body.data.documents as Array<{
    id: string;
    current: boolean;
    status: string;
  }>) {
    if (!document.current || document.status !== 'pending_review') continue;
    const approved = await t.api.post(adminDocumentUrl(companyId, document.id, 'approve'), undefined, {
      headers: adminHeaders,
    });
    assert.equal(approved.status, 200, approved.text);
  }
  const approved = await t.api.post(adminPartnerUrl(companyId, 'approve'), undefined, {
    headers: adminHeaders,
  });
  assert.equal(approved.status, 200, approved.text);
}
