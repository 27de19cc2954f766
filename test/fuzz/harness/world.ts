import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AdminDocument, adminPost, partnerRecord } from '../../support/admin.js';
import { createTestApp, type DialectName, TEST_ADMIN_KEY, type TestApp } from '../../support/app.js';
import { until } from '../../support/assertions.js';
import { customerBody, memberBody, PDF_BYTES, uniqueEmail } from '../../support/factories.js';
import { completeOnboarding, postDocument, postRepresentative } from '../../support/onboarding.js';
import { apiDocuments } from '../../support/openapi.js';
import { createApiKey, newPartner, type PartnerAt, signIn } from '../../support/partners.js';
import {
  adminDocumentUrl,
  apiKeyUrl,
  BUSINESS_INFO,
  CREATE_ACCOUNT,
  creditUrl,
  DELIVERIES,
  LOGOUT,
  SUBMIT,
  TEAM,
  WEBHOOK,
} from '../../support/paths.js';
import { SmtpSink } from '../../support/smtp-sink.js';
import type { OpenApiDocument } from './openapi.js';

/** Which of the world's partners owns a pooled identifier. */
export type Owner = 'main' | 'adminTarget' | 'login' | 'any';

export interface PoolEntry {
  value: string;
  owner: Owner;
}

export type PoolName =
  | 'company'
  | 'adminTargetCompany'
  | 'document'
  | 'adminTargetDocument'
  | 'teamMember'
  | 'accountNumber'
  | 'apiKey'
  | 'delivery'
  | 'eventId'
  | 'email'
  | 'unverifiedEmail'
  | `cursor:${string}`
  | 'idempotencyKey';

/** Identifiers the fuzzer mixes into path and query parameters; creations during the run add to them. */
export class Pools {
  private readonly pools = new Map<string, PoolEntry[]>();

  add(name: PoolName, value: string, owner: Owner = 'main'): void {
    const pool = this.pools.get(name) ?? [];
    if (!pool.some((entry) => entry.value === value)) pool.push({ value, owner });
    this.pools.set(name, pool);
  }

  pick(name: PoolName, index: number): PoolEntry | undefined {
    const pool = this.pools.get(name);
    if (!pool || pool.length === 0) return undefined;
    return pool[index % pool.length];
  }

  replace(name: PoolName, entries: PoolEntry[]): void {
    this.pools.set(name, [...entries]);
  }

  /** The first entry of a pool with this owner. */
  owned(name: PoolName, owner: Owner): PoolEntry | undefined {
    return this.pools.get(name)?.find((entry) => entry.owner === owner);
  }

  size(name: PoolName): number {
    return this.pools.get(name)?.length ?? 0;
  }
}

export interface FuzzWorld {
  dialect: DialectName;
  t: TestApp;
  sink: SmtpSink;
  doc: OpenApiDocument;
  pools: Pools;
  /** The partner whose credentials the fuzzer uses (sandbox session and sandbox API key). */
  main: PartnerAt<'signed-in'>;
  /** Another partner, submitted for review: the operator actions' target and the source of foreign ids. */
  adminTarget: PartnerAt<'signed-in'>;
  /** Only ever logged into by the login fuzzing (so its lockout does not matter). */
  loginPartner: PartnerAt<'signed-in'>;
  /** Gives fresh sessions for logout. */
  logoutPartner: PartnerAt<'signed-in'>;
  unverifiedEmail: string;
  mainBvn: string;
  /** E-mails already taken by the main partner's team member and virtual-account customer. */
  mainEmails: { member: string; customer: string };
  credentials: {
    sessionToken: string;
    apiKey: string;
    adminKey: string;
    revokedApiKey: string;
    loggedOutToken: string;
  };
  /** Partner ids whose rows the persistence snapshots compare in full; the main partner's first. */
  knownPartnerIds: number[];
  receiverUrl: string;
  /** Run by close() before the app stops (extra connections and the like). */
  cleanups: Array<() => Promise<void>>;
  /** The latest verification code e-mailed to an address (from the SMTP sink), if any. */
  latestOtp(email: string): string | undefined;
  /**
   * A new partner submitted for review (its documents approved when asked): the operator
   * actions consume their target's state, so their valid cases get a fresh one.
   */
  freshReviewTarget(options: { approveDocuments: boolean }): Promise<void>;
  /** A fresh session of logoutPartner (for the logout operation). */
  freshSession(): Promise<string>;
  close(): Promise<void>;
}

/** A webhook receiver that answers 204 to everything. */
async function startReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(204);
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function expectStatus(
  response: Promise<{ status: number; text: string; body: { data?: unknown } }>,
  statuses: number[],
  what: string,
): Promise<{ data?: unknown }> {
  const result = await response;
  assert.ok(statuses.includes(result.status), `fuzz setup: ${what} → ${result.status} ${result.text}`);
  return result.body;
}

/** Builds the world the fuzzer runs in: one app, several partners, real credentials and ids. */
export async function createFuzzWorld(dialect: DialectName): Promise<FuzzWorld> {
  const sink = await new SmtpSink().start();
  const receiver = await startReceiver();
  const t = await createTestApp(dialect, {
    env: {
      SMTP_URL: sink.url,
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_BASE_MS: '600000',
      LOG_LEVEL: 'warn',
    },
  });
  try {
    const pools = new Pools();
    const doc = (await apiDocuments(t)).all as OpenApiDocument;

    const [main, adminTarget, loginPartner, logoutPartner] = await Promise.all([
      newPartner({ t, sink }, 'signed-in', { business_name: 'Fuzz Main Ltd' }),
      newPartner({ t, sink }, 'signed-in', { business_name: 'Fuzz Review Target Ltd' }),
      newPartner({ t, sink }, 'signed-in', { business_name: 'Fuzz Login Ltd' }),
      newPartner({ t, sink }, 'signed-in', { business_name: 'Fuzz Logout Ltd' }),
    ]);
    const unverified = await newPartner({ t }, 'registered', { email: uniqueEmail('unverified') });

    // Main partner: profile, representative (KYC passes, so team members can be added), documents.
    const mainBvn = '22123456789';
    const token = main.token;
    await expectStatus(
      t.api.put(
        BUSINESS_INFO,
        {
          business_type: 'limited_liability',
          rc_number: 'RC1234567',
          legal_business_name: 'Fuzz Main Limited',
        },
        { token },
      ),
      [200],
      'main profile',
    );
    await expectStatus(postRepresentative(t, token, { bvn: mainBvn }), [201], 'main representative');
    for (const [fields, files] of [
      [{ document_type: 'cac_certificate' }, { file: { bytes: PDF_BYTES, name: 'cac.pdf' } }],
      [{ document_type: 'other', file_url: 'https://files.fuzz.ng/other.pdf' }, {}],
    ] as const) {
      const body = await expectStatus(postDocument(t, token, fields, files), [201], 'main document');
      pools.add('document', (body.data as { id: string }).id);
    }

    // Credentials: the sandbox API key the fuzzer uses, two it may revoke, one already revoked.
    const keyFor = (partnerToken: string, name: string) => createApiKey(t, partnerToken, 'sandbox', name);
    const credentialKey = await keyFor(token, 'fuzz-credential');
    for (const name of ['fuzz-revocable-1', 'fuzz-revocable-2'])
      pools.add('apiKey', (await keyFor(token, name)).id);
    const revoked = await keyFor(token, 'fuzz-revoked');
    await expectStatus(t.api.delete(apiKeyUrl(revoked.id), { token }), [200], 'revoke');

    // Both partners get a webhook endpoint before the events that produce deliveries.
    const adminToken = adminTarget.token;
    await completeOnboarding(t, adminToken);
    for (const partnerToken of [token, adminToken]) {
      await expectStatus(
        t.api.put(WEBHOOK, { url: receiver.url }, { token: partnerToken }),
        [200, 201],
        'set webhook',
      );
    }
    const member = (partnerToken: string, email: string) =>
      expectStatus(
        t.api.post(
          TEAM,
          memberBody({ email, bvn: '22234567890', id_file_url: 'https://files.fuzz.ng/ids/chidi.pdf' }),
          { token: partnerToken },
        ),
        [201],
        'team member',
      );
    const account = (partnerToken: string, email: string) =>
      expectStatus(
        t.api.post(CREATE_ACCOUNT, customerBody({ email }), { token: partnerToken }),
        [201],
        'virtual account',
      );
    const mainEmails = { member: uniqueEmail('member'), customer: uniqueEmail('customer') };
    for (const [partnerToken, owner] of [
      [token, 'main'],
      [adminToken, 'adminTarget'],
    ] as const) {
      const emails =
        owner === 'main' ? mainEmails : { member: uniqueEmail('member'), customer: uniqueEmail('customer') };
      pools.add('teamMember', ((await member(partnerToken, emails.member)).data as { id: string }).id, owner);
      const created = (await account(partnerToken, emails.customer)).data as { account_number: string };
      pools.add('accountNumber', created.account_number, owner);
      await expectStatus(
        t.api.post(creditUrl(created.account_number), { amount: '150.50' }, { token: partnerToken }),
        [201],
        'credit',
      );
    }
    pools.add('apiKey', (await keyFor(adminToken, 'foreign-key')).id, 'adminTarget');

    // Admin target: submitted for review, its documents the operator's document ids.
    await expectStatus(t.api.post(SUBMIT, undefined, { token: adminToken }), [200], 'submit');
    const record = await partnerRecord(t, adminTarget.companyId);
    for (const document of record.documents as AdminDocument[]) {
      pools.add('adminTargetDocument', document.id, 'adminTarget');
      pools.add('document', document.id, 'adminTarget');
    }

    pools.add('company', String(main.companyId), 'main');
    pools.add('company', String(adminTarget.companyId), 'adminTarget');
    pools.add('company', String(loginPartner.companyId), 'login');
    pools.add('adminTargetCompany', String(adminTarget.companyId), 'adminTarget');
    for (const email of [main.email, loginPartner.email, unverified.email]) pools.add('email', email, 'any');
    pools.add('unverifiedEmail', unverified.email, 'any');

    // Deliveries: wait until the worker has delivered the events above.
    for (const [partnerToken, owner] of [
      [token, 'main'],
      [adminToken, 'adminTarget'],
    ] as const) {
      const items = await until(
        `fuzz setup: a webhook delivery of ${owner}`,
        async () => {
          const list = await t.api.get(DELIVERIES, { token: partnerToken });
          const found = (list.body.data?.items ?? []) as Array<{ id: string; event_id: string }>;
          return found.length > 0 && found;
        },
        10_000,
        100,
      );
      for (const item of items) {
        pools.add('delivery', item.id, owner);
        pools.add('eventId', item.event_id, owner);
      }
    }

    const loggedOutToken = await signIn(t, logoutPartner);
    await expectStatus(t.api.post(LOGOUT, undefined, { token: loggedOutToken }), [200], 'logout');

    const cleanups: Array<() => Promise<void>> = [];
    return {
      dialect,
      cleanups,
      t,
      sink,
      doc,
      pools,
      main,
      adminTarget,
      loginPartner,
      logoutPartner,
      unverifiedEmail: unverified.email,
      mainBvn,
      mainEmails,
      credentials: {
        sessionToken: token,
        apiKey: credentialKey.key,
        adminKey: TEST_ADMIN_KEY,
        revokedApiKey: revoked.key,
        loggedOutToken,
      },
      knownPartnerIds: [
        main.companyId,
        adminTarget.companyId,
        loginPartner.companyId,
        logoutPartner.companyId,
        unverified.companyId,
      ],
      receiverUrl: receiver.url,
      freshSession: () => signIn(t, logoutPartner),
      latestOtp: (email) => sink.latestCode(email),
      freshReviewTarget: async ({ approveDocuments }) => {
        const partner = await newPartner({ t, sink }, 'submitted', {
          business_name: 'Fuzz Fresh Review Ltd',
        });
        const fresh = await partnerRecord(t, partner.companyId);
        const documents = fresh.documents as AdminDocument[];
        pools.replace('adminTargetCompany', [{ value: String(partner.companyId), owner: 'adminTarget' }]);
        pools.replace(
          'adminTargetDocument',
          documents.map((document) => ({ value: document.id, owner: 'adminTarget' })),
        );
        if (approveDocuments) {
          for (const document of documents) {
            await expectStatus(
              adminPost(t, adminDocumentUrl(partner.companyId, document.id, 'approve')),
              [200],
              'approve fresh document',
            );
          }
        }
      },
      close: async () => {
        for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
        await t.close();
        await receiver.close();
        await sink.stop();
      },
    };
  } catch (error) {
    await t.close().catch(() => undefined);
    await receiver.close();
    await sink.stop();
    throw error;
  }
}
