export type AcceptedFileType = 'application/pdf' | 'image/jpeg' | 'image/png';

const SIGNATURES: Array<{ type: AcceptedFileType; bytes: number[] }> = [
  { type: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
];

/** The file's type from its first bytes (magic numbers), whatever its name or declared type says. */
export function detectFileType(bytes: Buffer): AcceptedFileType | undefined {
  return SIGNATURES.find(({ bytes: signature }) => signature.every((byte, index) => bytes[index] === byte))
    ?.type;
}

export const FILE_EXTENSIONS: Record<AcceptedFileType, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
};
