import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../src/platform/db/schema.js';
import type { Fixture } from './raw-kit.js';
import type { SeededPartner } from './scenario.js';

const V1 = '/baas/api/v1';

async function post(baseUrl: string, route: string, body: unknown, expected: number) {
  const response = await fetch(`${baseUrl}${V1}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`POST ${route} → ${response.status} (expected ${expected}): ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as { data: Record<string, unknown> };
}

/** Runs `task` over `items` with at most `limit` at a time. */
async function eachLimited<T, R>(
  items: T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** E-mail address → code, from the .eml files the app writes to DATA_DIR/outbox without SMTP_URL. */
function readOutbox(outboxDir: string): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of readdirSync(outboxDir)
    .filter((name) => name.endsWith('.eml'))
    .sort()) {
    const raw = readFileSync(path.join(outboxDir, file), 'utf8');
    const to = /^To: (?:.*<)?([^<>\s]+@[^<>\s]+?)>?\s*$/im.exec(raw)?.[1];
    const code = /verification code is (\d{6})/.exec(raw)?.[1];
    if (to && code) codes.set(to.toLowerCase(), code);
  }
  return codes;
}

/** Registers, verifies (code read from the outbox) and logs in `count` partners, all over HTTP. */
export async function seedPartners(
  baseUrl: string,
  outboxDir: string,
  count: number,
  runId: string,
): Promise<SeededPartner[]> {
  const accounts = Array.from({ length: count }, (_, i) => ({
    email: `bench-${runId}-${i}@example.com`,
    password: `Bench-Ledger-${runId}-${i}`,
  }));
  // Registration and login each cost an argon2id computation: a few at a time keeps libuv's pool busy.
  const limit = 4;
  const companyIds = await eachLimited(accounts, limit, async ({ email, password }) => {
    const registered = await post(
      baseUrl,
      '/client/onboarding/register',
      {
        business_name: 'Bench Payments Ltd',
        email,
        password,
        password_confirmation: password,
        phone: '+234 803 123 4567',
      },
      201,
    );
    return registered.data['company_id'] as number;
  });
  const codes = readOutbox(outboxDir);
  return eachLimited(accounts, limit, async ({ email, password }, index) => {
    const otp = codes.get(email);
    if (!otp) throw new Error(`no verification e-mail to ${email} in ${outboxDir}`);
    await post(baseUrl, '/client/onboarding/verify-otp', { email, otp }, 200);
    const login = await post(baseUrl, '/client/onboarding/login', { email, password }, 200);
    return {
      companyId: companyIds[index]!,
      email,
      password,
      token: login.data['token'] as string,
    };
  });
}

/** The rows the raw server keeps in memory: what the app reads from its database for the same work. */
export async function readFixture(
  db: Kysely<Database>,
  scenarioData: Record<string, unknown>,
): Promise<Fixture> {
  const partners = await db
    .selectFrom('partners')
    .select([
      'id',
      'email',
      'business_name',
      'legal_business_name',
      'phone',
      'password_hash',
      'verified_at',
      'business_type',
      'rc_number',
      'address',
      'website',
      'onboarding_status',
      'review_notes',
    ])
    .execute();
  const sessions = await db
    .selectFrom('sessions')
    .select(['id', 'token_hash', 'partner_id', 'environment', 'expires_at'])
    .execute();
  const representatives = await db
    .selectFrom('representatives')
    .select(['partner_id', 'first_name', 'last_name', 'email', 'kyc_status', 'kyc_message'])
    .execute();
  const documents = await db
    .selectFrom('documents')
    .select(['id', 'partner_id', 'document_type', 'status', 'rejection_reason', 'uploaded_at'])
    .where('superseded_at', 'is', null)
    .orderBy('uploaded_at')
    .orderBy('id')
    .execute();
  return { partners, sessions, representatives, documents, scenarioData };
}
