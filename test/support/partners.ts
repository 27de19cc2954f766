import assert from 'node:assert/strict';
import { approvePartner, rejectPartner } from './admin.js';
import type { TestApp } from './app.js';
import { customerBody, registration, uniqueSuffix } from './factories.js';
import type { ApiResponse } from './http.js';
import { completeOnboarding, submit } from './onboarding.js';
import { API_KEYS, CREATE_ACCOUNT, ENVIRONMENT, LOGIN, REGISTER, VERIFY_OTP } from './paths.js';
import { type EnrolledFactor, enrolSecondFactor, loginWithSecondFactor } from './second-factor.js';
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
  /** The owner's second factor (live): logins ask for a code; signIn uses its recovery codes. */
  secondFactor?: EnrolledFactor;
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

/** The partner as `newPartner(…, stage)` returns it: the fields of that stage are certain. */
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
  const submitted = await submit(t, token);
  assert.equal(submitted.status, 200, submitted.text);
  if (stage === 'submitted') return done();
  if (stage === 'rejected') {
    await rejectPartner(t, made.companyId);
    return done();
  }

  await approvePartner(t, made.companyId);
  if (stage === 'active') return done();

  // Live money by dashboard session needs a session made with a second factor (docs/decisions.md,
  // "Dashboard second factor"): the live partner's owner enrols one and its live session is made with it.
  made.secondFactor = await enrolSecondFactor(t, token);
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
  account: { email: string; password: string; secondFactor?: EnrolledFactor | undefined },
  environment: Environment = 'sandbox',
): Promise<string> {
  const { secondFactor } = account;
  const data = secondFactor
    ? await loginWithSecondFactor(t, { email: account.email, password: account.password, secondFactor })
    : (await loggedIn(t, account)).body.data;
  assert.equal(data.environment, 'sandbox');
  const token = data.token as string;
  if (environment === 'live') await switchEnvironment(t, token, 'live');
  return token;
}

async function loggedIn(t: Pick<TestApp, 'api'>, account: { email: string; password: string }) {
  const login = await t.api.post(LOGIN, { email: account.email, password: account.password });
  assert.equal(login.status, 200, login.text);
  return login;
}

async function switchEnvironment(
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

/**
 * Opens a virtual account (201) for a fresh end user, or the one `overrides` describe (they go into
 * the customer body); returns the API's account object.
 */
export async function createAccount(
  t: Pick<TestApp, 'api'>,
  token: string,
  overrides: Record<string, unknown> = {},
  // biome-ignore lint/suspicious/noExplicitAny: the API's account object.
): Promise<any> {
  const response = await t.api.post(CREATE_ACCOUNT, customerBody(overrides), { token });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}
