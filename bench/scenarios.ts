import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import argon2 from 'argon2';
import type { BusinessType, OnboardingStatus } from '../src/modules/onboarding/onboarding.schemas.js';
import { checklistOf, type OnboardingState, requirementsOf } from '../src/modules/onboarding/requirements.js';
import { nuban } from '../src/modules/virtual-accounts/nuban.js';
import {
  bearerToken,
  type FixturePartner,
  type RawRoute,
  type RawState,
  readJsonBody,
  sendError,
  sendJson,
  sha256,
} from './raw-kit.js';
import {
  appOverRawAtLeast,
  appProbeP99AtMost,
  type BenchRequest,
  type LoadSpec,
  noErrors,
  type Scenario,
  type ScenarioContext,
} from './scenario.js';

/**
 * The measured scenarios, run in this order. Adding one is adding an entry: its raw routes (the same
 * work from memory), the load, the parity request and the targets. Loaded by the raw server too, so
 * nothing here may start work at import time.
 */

const V1 = '/baas/api/v1';
const BUSINESS_INFO = `${V1}/client/onboarding/business-info`;
const CREATE_ACCOUNT = `${V1}/services/virtual-account/create`;
/** The app's defaults (bench/app-server.ts sets neither). */
const BANK_CODE = '999999';
const BANK_NAME = 'BaaS Partner Bank';
const LOGIN = `${V1}/client/onboarding/login`;
const SESSION_TTL_SECONDS = 7200;
/** How many partners' tokens and logins a load rotates through. */
const ROTATION = 50;

/** The profile as the onboarding service builds it, with its pure checklist and requirements rules. */
function profileOf(state: RawState, partner: FixturePartner, environment: string) {
  const representative = state.representativesByPartner.get(partner.id);
  const documents = state.documentsByPartner.get(partner.id) ?? [];
  const onboarding: OnboardingState = {
    onboardingStatus: partner.onboarding_status as OnboardingStatus,
    businessType: partner.business_type as BusinessType | null,
    reviewNotes: partner.review_notes,
    representative: representative
      ? { kycStatus: representative.kyc_status, kycMessage: representative.kyc_message }
      : null,
    documents: documents.map((document) => ({
      documentType: document.document_type,
      status: document.status,
      rejectionReason: document.rejection_reason,
    })),
  };
  return {
    company_id: partner.id,
    business_name: partner.business_name,
    legal_business_name: partner.legal_business_name,
    business_type: partner.business_type,
    rc_number: partner.rc_number,
    address: partner.address,
    website: partner.website,
    email: partner.email,
    phone: partner.phone,
    onboarding_status: partner.onboarding_status,
    environment,
    representative: representative
      ? {
          first_name: representative.first_name,
          last_name: representative.last_name,
          email: representative.email,
        }
      : null,
    documents: documents.map((document) => ({
      id: document.id,
      document_type: document.document_type,
      status: document.status,
      rejection_reason: document.rejection_reason,
      uploaded_at: new Date(document.uploaded_at).toISOString(),
    })),
    document_checklist: checklistOf(onboarding),
    review_notes: partner.review_notes,
    requirements: requirementsOf(onboarding),
  };
}

const businessInfoRoute: RawRoute = {
  method: 'GET',
  path: BUSINESS_INFO,
  handle(req, res, state) {
    const token = bearerToken(req);
    if (!token) return sendError(res, 401, 'UNAUTHENTICATED', 'Authentication required.');
    const session = state.sessions.get(sha256(token));
    if (!session) return sendError(res, 401, 'UNAUTHENTICATED', 'Authentication required.');
    if (session.expires_at <= Date.now()) return sendError(res, 401, 'TOKEN_EXPIRED', 'Token expired.');
    const partner = state.partnersById.get(session.partner_id);
    if (!partner) return sendError(res, 404, 'NOT_FOUND', 'Not found.');
    sendJson(res, 200, {
      status: 'success',
      message: 'Onboarding profile.',
      data: profileOf(state, partner, session.environment),
    });
  },
};

const loginRoute: RawRoute = {
  method: 'POST',
  path: LOGIN,
  async handle(req, res, state) {
    const body = (await readJsonBody(req)) as { email?: unknown; password?: unknown } | undefined;
    if (typeof body?.email !== 'string' || typeof body.password !== 'string') {
      return sendError(res, 422, 'VALIDATION_FAILED', 'Some fields are invalid.');
    }
    const partner = state.partnersByEmail.get(body.email.trim().toLowerCase());
    let ok = false;
    try {
      ok = partner ? await argon2.verify(partner.password_hash, body.password) : false;
    } catch {
      ok = false;
    }
    if (!partner || !ok) return sendError(res, 401, 'INVALID_CREDENTIALS', 'Invalid credentials.');
    const token = randomBytes(32).toString('base64url');
    const tokenHash = sha256(token);
    state.sessions.set(tokenHash, {
      id: randomUUID(),
      token_hash: tokenHash,
      partner_id: partner.id,
      environment: 'sandbox',
      expires_at: Date.now() + SESSION_TTL_SECONDS * 1000,
    });
    sendJson(res, 200, {
      status: 'success',
      message: 'Logged in.',
      data: { token, token_type: 'Bearer', expires_in: SESSION_TTL_SECONDS, environment: 'sandbox' },
    });
  },
};

const healthzRoute: RawRoute = {
  method: 'GET',
  path: '/healthz',
  handle(_req, res) {
    sendJson(res, 200, { status: 'success', message: 'OK', data: { status: 'ok' } });
  },
};

interface ApiKeyFixture {
  key: string;
  partnerId: number;
}

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE = /^[0-9+() -]{7,20}$/;
const API_KEY = /^sk_(sandbox|live)_([A-Za-z0-9_-]{43})$/;

/** The raw server's in-memory tables for account creation, built from the setup's keys on first use. */
const accountTables = new WeakMap<
  RawState,
  {
    keysByPrefix: Map<string, { hash: string; partnerId: number; environment: string }>;
    accountsByCustomer: Map<string, unknown>;
    numbers: Set<string>;
  }
>();

function tablesOf(state: RawState) {
  let tables = accountTables.get(state);
  if (!tables) {
    const keys =
      (state.scenarioData['virtual-account-create'] as { keys: ApiKeyFixture[] } | undefined)?.keys ?? [];
    tables = {
      keysByPrefix: new Map(
        keys.map((fixture) => {
          const match = API_KEY.exec(fixture.key)!;
          return [
            match[2]!.slice(0, 12),
            { hash: sha256(fixture.key), partnerId: fixture.partnerId, environment: match[1]! },
          ];
        }),
      ),
      accountsByCustomer: new Map(),
      numbers: new Set(),
    };
    accountTables.set(state, tables);
  }
  return tables;
}

const text = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.trim() !== '' && value.trim().length <= max ? value.trim() : undefined;

/** Issue a NUBAN from memory: key lookup, the same field rules, one account per e-mail, a unique number. */
const createAccountRoute: RawRoute = {
  method: 'POST',
  path: CREATE_ACCOUNT,
  async handle(req, res, state) {
    const key = bearerToken(req);
    const match = key ? API_KEY.exec(key) : null;
    const tables = tablesOf(state);
    const stored = match ? tables.keysByPrefix.get(match[2]!.slice(0, 12)) : undefined;
    if (!key || !stored || stored.hash !== sha256(key)) {
      return sendError(res, 401, 'UNAUTHENTICATED', 'Authentication required.');
    }
    const body = (await readJsonBody(req)) as Record<string, unknown> | undefined;
    const firstName = text(body?.['first_name'], 100);
    const lastName = text(body?.['last_name'], 100);
    const email = text(body?.['email'], 254)?.toLowerCase();
    const phone = text(body?.['phone'], 20);
    if (!firstName || !lastName || !email || !EMAIL.test(email) || !phone || !PHONE.test(phone)) {
      return sendError(res, 422, 'VALIDATION_FAILED', 'Some fields are invalid.');
    }
    const customer = `${stored.partnerId}:${stored.environment}:${email}`;
    if (tables.accountsByCustomer.has(customer)) {
      return sendError(res, 409, 'VIRTUAL_ACCOUNT_EXISTS', 'A virtual account already exists.');
    }
    let accountNumber: string;
    do {
      accountNumber = nuban(BANK_CODE, String(randomInt(0, 1_000_000_000)).padStart(9, '0'));
    } while (tables.numbers.has(accountNumber));
    tables.numbers.add(accountNumber);
    const partner = state.partnersById.get(stored.partnerId);
    const account = {
      id: randomUUID(),
      account_number: accountNumber,
      account_name: `${partner?.business_name}/${firstName} ${lastName}`,
      bank_name: BANK_NAME,
      bank_code: BANK_CODE,
      currency: 'NGN',
      status: 'active',
      balance: 0,
      balance_kobo: 0,
      environment: stored.environment,
      customer: { first_name: firstName, last_name: lastName, email, phone },
      created_at: new Date().toISOString(),
    };
    tables.accountsByCustomer.set(customer, account);
    sendJson(res, 201, { status: 'success', message: 'Virtual account created.', data: account });
  },
};

const createAccountRequest = (key: string, email: string): BenchRequest => ({
  method: 'POST',
  path: CREATE_ACCOUNT,
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ first_name: 'Tunde', last_name: 'Bakare', email, phone: '+2348090000000' }),
});

/** Values that differ on every creation. */
function maskAccount(body: unknown): unknown {
  const data = (body as { data?: Record<string, unknown> } | undefined)?.data;
  if (!data) return body;
  return {
    ...(body as object),
    data: { ...data, id: '<id>', account_number: '<nuban>', created_at: '<time>' },
  };
}

const rotation = <T>(items: T[]): T[] => items.slice(0, Math.max(1, Math.min(ROTATION, items.length)));

const businessInfoRequest = (token: string): BenchRequest => ({
  method: 'GET',
  path: BUSINESS_INFO,
  headers: { authorization: `Bearer ${token}` },
});

const loginRequest = (email: string, password: string): BenchRequest => ({
  method: 'POST',
  path: LOGIN,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email, password }),
});

/** Correct passwords only, so the per-e-mail lockout never trips. */
function loginLoad(ctx: ScenarioContext): LoadSpec {
  return {
    label: 'POST login',
    // Twice libuv's 4 threads: argon2 always has queued work, on both servers alike.
    connections: ctx.settings.connections ?? 8,
    requests: rotation(ctx.partners).map((partner) => loginRequest(partner.email, partner.password)),
  };
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function maskLoginToken(body: unknown): unknown {
  const data = (body as { data?: { token?: unknown } } | undefined)?.data;
  if (!data || typeof data.token !== 'string') return body;
  return { ...(body as object), data: { ...data, token: TOKEN.test(data.token) ? '<token>' : data.token } };
}

function firstPartner(ctx: ScenarioContext) {
  const partner = ctx.partners[0];
  if (!partner) throw new Error('no seeded partner');
  return partner;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'business-info',
    title: 'GET business-info (session token)',
    routes: [businessInfoRoute],
    load: (ctx) => ({
      label: 'GET business-info',
      connections: ctx.settings.connections ?? 10,
      requests: rotation(ctx.partners).map((partner) => businessInfoRequest(partner.token)),
    }),
    parity: (ctx) => ({ request: businessInfoRequest(firstPartner(ctx).token) }),
    targets: [appOverRawAtLeast(0.6), noErrors()],
  },
  {
    name: 'login',
    title: 'POST login (argon2id verify)',
    routes: [loginRoute],
    load: loginLoad,
    parity: (ctx) => {
      const partner = firstPartner(ctx);
      return { request: loginRequest(partner.email, partner.password), mask: maskLoginToken };
    },
    targets: [appOverRawAtLeast(0.9), noErrors()],
  },
  {
    name: 'healthz-under-login',
    title: 'GET /healthz while logins saturate the CPU',
    routes: [loginRoute, healthzRoute],
    load: loginLoad,
    probe: (ctx) => ({ label: 'GET /healthz', path: '/healthz', ratePerSec: ctx.settings.probeRate }),
    parity: () => ({ request: { method: 'GET', path: '/healthz' } }),
    targets: [appProbeP99AtMost(20), noErrors()],
  },
  {
    name: 'virtual-account-create',
    title: 'POST virtual-account/create (API key, a new customer each time)',
    routes: [createAccountRoute],
    async setup(ctx) {
      const keys: ApiKeyFixture[] = [];
      for (const partner of rotation(ctx.partners)) {
        const response = await fetch(`${ctx.appUrl}${V1}/services/partner/settings/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${partner.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'bench', environment: 'sandbox' }),
        });
        const created = (await response.json()) as { data?: { key?: string } };
        if (response.status !== 201 || !created.data?.key)
          throw new Error(`API key creation answered ${response.status}`);
        keys.push({ key: created.data.key, partnerId: partner.companyId });
      }
      return { keys };
    },
    load: (ctx) => ({
      label: 'POST virtual-account/create',
      connections: ctx.settings.connections ?? 10,
      requests: (ctx.data as { keys: ApiKeyFixture[] }).keys.map((fixture) =>
        createAccountRequest(fixture.key, 'customer-[<id>]@example.com'),
      ),
      idReplacement: true,
    }),
    parity: (ctx) => ({
      request: createAccountRequest(
        (ctx.data as { keys: ApiKeyFixture[] }).keys[0]!.key,
        'parity@example.com',
      ),
      mask: maskAccount,
    }),
    targets: [appOverRawAtLeast(0.5), noErrors()],
  },
];
