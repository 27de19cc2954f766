/**
 * Just enough MIME to read what the app's mailer (nodemailer) sends: headers (RFC 2047 encoded
 * words in the subject), a single part or multipart/alternative, quoted-printable or base64 bodies,
 * UTF-8.
 */

export interface ParsedMail {
  headers: Map<string, string>;
  subject: string;
  /** The text/plain part, decoded. */
  text: string | undefined;
  /** The text/html part, decoded. */
  html: string | undefined;
  /** Every part's content type, in order (the top one for a single-part message). */
  contentTypes: string[];
}

function splitHeaders(raw: string): { headers: Map<string, string>; body: string } {
  const normalized = raw.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end < 0 ? normalized : normalized.slice(0, end);
  const body = end < 0 ? '' : normalized.slice(end + 2);
  const headers = new Map<string, string>();
  // Folded lines continue the header above them.
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const char = soft[i]!;
    if (char === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(char, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); whitespace between two of them goes. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_match, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

const mediaType = (contentType: string | undefined) =>
  (contentType ?? 'text/plain').split(';')[0]!.trim().toLowerCase();

export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitHeaders(raw);
  const parsed: ParsedMail = {
    headers,
    subject: decodeEncodedWords(headers.get('subject') ?? ''),
    text: undefined,
    html: undefined,
    contentTypes: [],
  };
  const type = mediaType(headers.get('content-type'));
  const parts: Array<{ headers: Map<string, string>; body: string }> = [];
  if (type.startsWith('multipart/')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(headers.get('content-type') ?? '')?.[1];
    if (!boundary) throw new Error(`a multipart message without a boundary:\n${raw}`);
    const sections = body.split(`--${boundary}`);
    // Before the first boundary is the preamble; from the closing one on, the epilogue.
    for (const section of sections.slice(1)) {
      if (section.startsWith('--')) break;
      parts.push(splitHeaders(section.replace(/^\n/, '')));
    }
  } else {
    parts.push({ headers, body });
  }
  for (const part of parts) {
    const partType = mediaType(part.headers.get('content-type'));
    parsed.contentTypes.push(partType);
    const decoded = decodeBody(part.body.replace(/\n$/, ''), part.headers.get('content-transfer-encoding'));
    if (partType === 'text/plain') parsed.text = decoded;
    if (partType === 'text/html') parsed.html = decoded;
  }
  return parsed;
}
