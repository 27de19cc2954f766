import assert from 'node:assert/strict';
import { TEST_ADMIN_KEY, type TestApp } from './app.js';
import {
  customerBody,
  form,
  PDF_BYTES,
  PNG_BYTES,
  registration,
  representativeFields,
  uniqueSuffix,
} from './factories.js';
import type { ApiResponse } from './http.js';
import {
  API_KEYS,
  adminDocumentUrl,
  adminPartnerUrl,
  BUSINESS_INFO,
  CREATE_ACCOUNT,
  DOCUMENTS,
  ENVIRONMENT,
  LOGIN,
  REGISTER,
  REPRESENTATIVE,
  SUBMIT,
  VERIFY_OTP,
} from './paths.js';
import type { SmtpSink } from './smtp-sink.js';

/** The fixture ladder: partners made over HTTP, as a client would, up to the stage a test needs. */

export type Environment = 'sandbox' | 'live';

/**
 * How far a partner has come. Each stage includes the ones above it in this list, except the two
 * branches: `sandbox` (signed-in plus a sandbox API key, not onboarded) and `rejected` (submitted,
 * then refused by the operator).
 *
 * - registered: POST /register answered 201 (the code is in the SMTP sink, unread).
 * - verified:   the e-mailed code verified; no session yet.
 * - signed-in:  logged in: `token` is a sandbox session.
 * - sandbox:    plus a sandbox API key.
 * - submitted:  profile, representative (KYC passed) and documents complete, and submitted.
 * - active:     the operator approved every document and the application.
 * - live:       plus a session switched to live and an API key in each environment.
 * - rejected:   submitted, then rejected by the operator.
 */
export type PartnerStage =
  | 'registered'
  | 'verified'
  | 'signed-in'
  | 'sandbox'
  | 'submitted'
  | 'active'
  | 'live'
  | 'rejected';

export interface Credential {
  label: string;
  token: string;
  kind: 'session' | 'api_key';
  environment: Environment;
}

/** One shape at every stage; a field is there from the stage that makes it. */
export interface Partner {
  stage: PartnerStage;
  /** As the API stores it: trimmed and lower-cased. */
  email: string;
  password: string;
  companyId: number;
  /** The 201 answer to POST /register. */
  registration: ApiResponse;
  /** A sandbox session (signed-in and later). */
  token?: string;
  /** A sandbox API key and its id (sandbox, live). */
  sandboxKey?: string;
  sandboxKeyId?: string;
  /** A session switched to live, a live API key and its id (live). */
  liveToken?: string;
  liveKey?: string;
  liveKeyId?: string;
  /** Every credential of a live partner, labelled (live). */
  credentials?: Credential[];
}

type LiveFields =
  | 'token'
  | 'sandboxKey'
  | 'sandboxKeyId'
  | 'liveToken'
  | 'liveKey'
  | 'liveKeyId'
  | 'credentials';
type FieldsAt<S extends PartnerStage> = S extends 'registered' | 'verified'
  ? never
  : S extends 'sandbox'
    ? 'token' | 'sandboxKey' | 'sandboxKeyId'
    : S extends 'live'
      ? LiveFields
      : 'token';

/** The partner as `partner(…, stage)` returns it: the fields of that stage are certain. */
export type PartnerAt<S extends PartnerStage> = Partner & Required<Pick<Partner, FieldsAt<S>>>;

/** What making a partner needs: the app to talk to and, past `registered`, the SMTP sink its codes go to. */
export interface PartnerKit {
  t: Pick<TestApp, 'api'>;
  sink?: SmtpSink;
}

/**
 * Makes a partner over HTTP up to `stage`; `overrides` go into the registration body. (Named so
 * that tests keep `partner` for the result.)
 */
export async function newPartner<S extends PartnerStage>(
  kit: PartnerKit,
  stage: S,
  overrides: Record<string, unknown> = {},
): Promise<PartnerAt<S>> {
  const { t, sink } = kit;
  const body = registration(overrides);
  const registered = await t.api.post(REGISTER, body);
  assert.equal(registered.status, 201, registered.text);
  const made: Partner = {
    stage,
    email: String(body.email).trim().toLowerCase(),
    password: body.password as string,
    companyId: registered.body.data.company_id as number,
    registration: registered,
  };
  const done = () => made as PartnerAt<S>;
  if (stage === 'registered') return done();

  assert.ok(sink, 'an SMTP sink reads the verification code');
  const verified = await t.api.post(VERIFY_OTP, { email: made.email, otp: await sink.otpFor(made.email) });
  assert.equal(verified.status, 200, verified.text);
  if (stage === 'verified') return done();

  const token = await signIn(t, made);
  made.token = token;
  if (stage === 'signed-in') return done();
  if (stage === 'sandbox') {
    const key = await createApiKey(t, token, 'sandbox');
    made.sandboxKey = key.key;
    made.sandboxKeyId = key.id;
    return done();
  }

  await completeOnboarding(t, token);
  const submitted = await t.api.post(SUBMIT, undefined, { token });
  assert.equal(submitted.status, 200, submitted.text);
  if (stage === 'submitted') return done();
  if (stage === 'rejected') {
    await rejectPartner(t, made.companyId);
    return done();
  }

  await approvePartner(t, made.companyId);
  if (stage === 'active') return done();

  const liveToken = await signIn(t, made, 'live');
  const sandboxKey = await createApiKey(t, token, 'sandbox');
  const liveKey = await createApiKey(t, token, 'live');
  Object.assign(made, {
    liveToken,
    sandboxKey: sandboxKey.key,
    sandboxKeyId: sandboxKey.id,
    liveKey: liveKey.key,
    liveKeyId: liveKey.id,
    credentials: [
      { label: 'sandbox session', token, kind: 'session', environment: 'sandbox' },
      { label: 'live session', token: liveToken, kind: 'session', environment: 'live' },
      { label: 'sandbox API key', token: sandboxKey.key, kind: 'api_key', environment: 'sandbox' },
      { label: 'live API key', token: liveKey.key, kind: 'api_key', environment: 'live' },
    ],
  } satisfies Partial<Partner>);
  return done();
}

/** A new session (login starts in sandbox); with `live`, switched to live (the partner must be active). */
export async function signIn(
  t: Pick<TestApp, 'api'>,
  account: { email: string; password: string },
  environment: Environment = 'sandbox',
): Promise<string> {
  const login = await t.api.post(LOGIN, { email: account.email, password: account.password });
  assert.equal(login.status, 200, login.text);
  assert.equal(login.body.data.environment, 'sandbox');
  const token = login.body.data.token as string;
  if (environment === 'live') await switchEnvironment(t, token, 'live');
  return token;
}

export async function switchEnvironment(
  t: Pick<TestApp, 'api'>,
  token: string,
  environment: Environment,
): Promise<void> {
  const response = await t.api.put(ENVIRONMENT, { environment }, { token });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.data.environment, environment);
}

export interface CreatedKey {
  id: string;
  name: string;
  environment: Environment;
  key: string;
  last4: string;
  created_at: string;
}

export async function createApiKey(
  t: Pick<TestApp, 'api'>,
  token: string,
  environment: Environment,
  name = `key-${uniqueSuffix()}`,
): Promise<CreatedKey> {
  const response = await t.api.post(API_KEYS, { name, environment }, { token });
  assert.equal(response.status, 201, response.text);
  return response.body.data as CreatedKey;
}

/** Opens a virtual account for a fresh end user; returns the API's account object. */
// biome-ignore lint/suspicious/noExplicitAny: the API's account object.
export async function createAccount(t: Pick<TestApp, 'api'>, token: string): Promise<any> {
  const response = await t.api.post(CREATE_ACCOUNT, customerBody(), { token });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
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

/** The operator approves every current document and then the application. */
export async function approvePartner(t: Pick<TestApp, 'api'>, companyId: number): Promise<void> {
  const record = await partnerRecord(t, companyId);
  for (const document of record.documents as Array<{ id: string; current: boolean; status: string }>) {
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
