import { randomBytes } from 'node:crypto';

/** Request bodies and files the API accepts, unless a test overrides a field. */

export const uniqueSuffix = (): string => randomBytes(5).toString('hex');

export const uniqueEmail = (prefix = 'partner'): string => `${prefix}-${uniqueSuffix()}@example.com`;

export const STRONG_PASSWORD = 'Kobo-Ledger-Sunrise-42';

/** A random password no common-password list holds. */
export const randomPassword = (length = 24): string =>
  randomBytes(length).toString('base64url').slice(0, length);

/** A 6-digit code that is certainly not `code`. */
export const wrongCode = (code: string, offset = 1): string =>
  String((Number(code) + offset) % 1_000_000).padStart(6, '0');

export function registration(overrides: Record<string, unknown> = {}) {
  const email = (overrides['email'] as string | undefined) ?? uniqueEmail();
  return {
    business_name: 'Acme Payments Ltd',
    email,
    password: STRONG_PASSWORD,
    password_confirmation: STRONG_PASSWORD,
    phone: '+234 803 123 4567',
    ...overrides,
  };
}

/** The compliance representative's text fields; the default BVN passes the sandbox KYC provider. */
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

/** A valid team-member body (docs/partner-guide.md, "API keys and team members"). */
export function memberBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Chidi',
    last_name: 'Okafor',
    email: `chidi-${uniqueSuffix()}@acme.ng`,
    phone: '+2348020000000',
    dob: '1990-06-01',
    gender: 'male',
    designation: 'compliance_officer',
    bvn: '22987654321',
    id_type: 'drivers_license',
    id_file_url: 'https://files.acme.ng/ids/chidi.pdf',
    address: '4 Broad Street, Lagos',
    ...overrides,
  };
}

/** A valid virtual-account body for a fresh end user (docs/partner-guide.md, "Virtual accounts"). */
export function customerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Tunde',
    last_name: 'Bakare',
    email: `tunde-${uniqueSuffix()}@example.com`,
    phone: '+2348090000000',
    ...overrides,
  };
}

/** Smallest valid files of each accepted type (the service decides types by these bytes). */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
export const PDF_BYTES = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
export const JPEG_BYTES = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

export const MIB = 1024 * 1024;

/** A file of exactly `size` bytes whose content starts with `header` (so its type is detected). */
export function fileOfSize(size: number, header: Buffer = PNG_BYTES): Buffer {
  const bytes = Buffer.alloc(size, 0x20);
  header.copy(bytes, 0, 0, Math.min(header.length, size));
  return bytes;
}

export type FileSpec = { bytes: Buffer; name?: string; type?: string };

/** A multipart form: text fields plus optional named files. */
export function form(fields: Record<string, string>, files: Record<string, FileSpec> = {}): FormData {
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
