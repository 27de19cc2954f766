import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the raw node:http baseline needs to do the app's work from memory: the rows the app would read,
 * copied out of the app's database after seeding, and the response plumbing the app's platform adds
 * (request id, security headers, JSON envelope).
 */

export interface FixturePartner {
  id: number;
  email: string;
  business_name: string;
  legal_business_name: string;
  phone: string;
  password_hash: string;
  verified_at: number | null;
  business_type: string | null;
  rc_number: string | null;
  address: string | null;
  website: string | null;
  onboarding_status: string;
  review_notes: string | null;
}

export interface FixtureSession {
  id: string;
  token_hash: string;
  partner_id: number;
  environment: string;
  expires_at: number;
}

export interface FixtureRepresentative {
  partner_id: number;
  first_name: string;
  last_name: string;
  email: string;
  kyc_status: string;
  kyc_message: string;
}

/** A current (not superseded) document. */
export interface FixtureDocument {
  id: string;
  partner_id: number;
  document_type: string;
  status: string;
  rejection_reason: string | null;
  uploaded_at: number;
}

export interface Fixture {
  partners: FixturePartner[];
  sessions: FixtureSession[];
  representatives: FixtureRepresentative[];
  /** Ordered as the app lists them: by uploaded_at, then id. */
  documents: FixtureDocument[];
  /** Whatever each scenario's setup returned, by scenario name. */
  scenarioData: Record<string, unknown>;
}

export interface RawState {
  partnersById: Map<number, FixturePartner>;
  partnersByEmail: Map<string, FixturePartner>;
  /** By SHA-256 (base64url) of the bearer token, as the app stores them. */
  sessions: Map<string, FixtureSession>;
  representativesByPartner: Map<number, FixtureRepresentative>;
  documentsByPartner: Map<number, FixtureDocument[]>;
  scenarioData: Record<string, unknown>;
}

export function createRawState(fixture: Fixture): RawState {
  const documentsByPartner = new Map<number, FixtureDocument[]>();
  for (const document of fixture.documents) {
    const list = documentsByPartner.get(document.partner_id) ?? [];
    list.push(document);
    documentsByPartner.set(document.partner_id, list);
  }
  return {
    partnersById: new Map(fixture.partners.map((partner) => [partner.id, partner])),
    partnersByEmail: new Map(fixture.partners.map((partner) => [partner.email, partner])),
    sessions: new Map(fixture.sessions.map((session) => [session.token_hash, session])),
    representativesByPartner: new Map(fixture.representatives.map((rep) => [rep.partner_id, rep])),
    documentsByPartner,
    scenarioData: fixture.scenarioData,
  };
}

export type RawHandler = (req: IncomingMessage, res: ServerResponse, state: RawState) => void | Promise<void>;

export interface RawRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  handle: RawHandler;
}

/** Same as the app's API_HEADERS (src/platform/http/http-platform.ts), added to every response. */
export const SECURITY_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'x-request-id': randomUUID(),
    ...SECURITY_HEADERS,
  });
  res.end(payload);
}

export function sendError(res: ServerResponse, status: number, errorCode: string, message: string): void {
  sendJson(res, status, { status: 'error', message, error_code: errorCode });
}

const BEARER = /^Bearer[ ]+([\x21-\x7e]{1,512})\s*$/i;

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
}

const BODY_LIMIT = 100 * 1024;

/** The request body parsed as JSON; undefined when it is missing, too large or not JSON. */
export function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > BODY_LIMIT) return resolve(undefined);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
    req.on('error', () => resolve(undefined));
  });
}
