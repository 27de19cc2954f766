import { formatBytes } from './format';

/**
 * What the API takes as a document: PDF, JPEG or PNG by content, at most 5 MiB (docs/partner-guide.md,
 * "Onboarding: profile, representative, documents").
 */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
export const ACCEPTED_FILE_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;

const SIGNATURES: Array<{ type: string; bytes: number[] }> = [
  { type: 'PDF', bytes: [0x25, 0x50, 0x44, 0x46] },
  { type: 'PNG', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'JPEG', bytes: [0xff, 0xd8, 0xff] },
];

/**
 * Why the API would refuse this file, or null: checked in the page before anything is sent, by
 * its first bytes as the server does (a renamed file is caught) and by its size.
 */
export async function fileProblem(file: File): Promise<string | null> {
  if (file.size === 0) return `${file.name} is empty.`;
  if (file.size > MAX_UPLOAD_BYTES) {
    return `${file.name} is larger than ${formatBytes(MAX_UPLOAD_BYTES)}, the most a document may be.`;
  }
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const known = SIGNATURES.some(({ bytes }) => bytes.every((byte, index) => head[index] === byte));
  return known ? null : `${file.name} is not a PDF, JPEG or PNG file.`;
}
