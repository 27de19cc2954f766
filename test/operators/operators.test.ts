import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type AdminDocument, adminGet, adminHeaders, adminPost, partnerRecord } from '../support/admin.js';
import {
  createTestDatabase,
  DIALECTS,
  startApp,
  type TestApp,
  type TestDatabase,
  useApp,
} from '../support/app.js';
import { assertError, ISO_INSTANT, UUID } from '../support/assertions.js';
import { PDF_BYTES, uniqueEmail } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { postDocument, submit } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import {
  ADMIN_PARTNERS,
  AUDIT_EVENTS,
  adminDocumentUrl,
  adminPartnerUrl,
  FORGOT_PASSWORD,
  LOGIN,
  RESET_PASSWORD,
} from '../support/paths.js';
import { serverEnv } from '../support/server-process.js';
import {
  accept,
  acceptCode,
  auditEvents,
  type ConsoleSession,
  consoleGet,
  consolePost,
  cookieOf,
  enrol,
  INVITATION_ACCEPT,
  INVITATION_LOOKUP,
  INVITATION_SECOND_FACTOR,
  INVITATIONS,
  invite,
  linkToken,
  lookupInvitation,
  ME_PASSWORD,
  ME_SESSIONS,
  newOperator,
  nextStep,
  notTheCode,
  OPERATORS,
  operatorUrl,
  PLAIN_COOKIE,
  passwordStep,
  SESSION,
  SESSION_LOGOUT,
  SESSION_PASSWORD,
  SESSION_SECOND_FACTOR,
  sessionFrom,
  signInOperator,
  startEnrolment,
  theSetCookie,
  totp,
} from './operator-kit.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const PUBLIC_URL = 'https://console.bank.example';
const STRONG = 'Lagoon-Cassava-Harmattan-19';

type Api = Pick<TestApp, 'api' | 'clock' | 'url'>;

/** The statuses of the operators' decisions seen from the partner record. */
const statusOf = async (t: Api, companyId: number) =>
  (await partnerRecord(t, companyId)).onboarding_status as string;

/** The current documents awaiting review of a partner, by type. */
async function pendingDocuments(t: Api, companyId: number): Promise<AdminDocument[]> {
  const record = await partnerRecord(t, companyId);
  return (record.documents as AdminDocument[]).filter(
    (document) => document.current && document.status === 'pending_review',
  );
}

/** The operators list (ADMIN_API_KEY). */
async function operatorsList(t: Api) {
  return listAll(t, OPERATORS, adminHeaders);
}

// ---------------------------------------------------------------------------------------------
// The command line: `npm run operator -- invite --email <e> --role admin`.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'src', 'operator.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs src/operator.ts as `npm run operator` does (with tsx), on the test database, from its DATA_DIR. */
function runCli(database: TestDatabase, args: string[]): Promise<CliRun> {
  const env = serverEnv(database, { PUBLIC_URL, LOG_LEVEL: 'silent' });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      cwd: database.dataDir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: database.dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const LINK = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/console/setup#token=[A-Za-z0-9_-]{43}$`, 'm');
const USAGE = /usage: npm run operator -- invite --email <e-mail> --role <reviewer\|admin>/;

for (const dialect of DIALECTS) {
  describe(`operator command line [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let started: Awaited<ReturnType<typeof startApp>>;
    before(async () => {
      database = await createTestDatabase(dialect.name);
      started = await startApp(database);
    });
    after(async () => {
      await started?.stop();
      await database?.drop();
    });

    it('invite --email --role admin prints a one-time link <PUBLIC_URL>/console/setup#token=… for the address', async () => {
      const t = started;
      const email = uniqueEmail('first-admin');
      const run = await runCli(database, ['invite', '--email', email.toUpperCase(), '--role', 'admin']);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const link = LINK.exec(run.stdout)?.[0];
      assert.ok(link, `a link on a line of its own:\n${run.stdout}`);
      assert.match(run.stdout, new RegExp(email.replace(/\./g, '\\.')), 'names the invited address');
      assert.match(run.stdout, /admin/);

      const token = linkToken(link);
      const opened = await lookupInvitation(t, token);
      assert.equal(opened.status, 200, opened.text);
      assert.equal(opened.body.data.email, email, 'lower-cased');
      assert.equal(opened.body.data.role, 'admin');
      assert.equal(opened.body.data.purpose, 'invite');
      const audited = await auditEvents(t, { action: 'operator.invited' });
      assert.equal(audited.filter((event) => event.metadata?.['email'] === email).length, 1);
      assert.deepEqual(audited.find((event) => event.metadata?.['email'] === email)?.actor, {
        type: 'system',
        id: 'cli',
        email: null,
      });

      // The link sets up the first admin, who can then manage operators from the console.
      const password = STRONG;
      const secret = await startEnrolment(t, token, {
        name: 'First Admin',
        password,
        password_confirmation: password,
      });
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.role, 'admin');
      const session = sessionFrom(t, accepted);
      const invited = await consolePost(t, session, INVITATIONS, {
        email: uniqueEmail('second'),
        role: 'reviewer',
      });
      assert.equal(invited.status, 201, invited.text);
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND', { what: 'the link is used up' });
    });

    it('exits 2 with the usage on bad arguments, inviting nobody', async () => {
      const t = started;
      const email = uniqueEmail('bad-args');
      const cases = [
        [],
        ['invite'],
        ['invite', '--email', email],
        ['invite', '--role', 'admin'],
        ['invite', '--email', 'not-an-address', '--role', 'admin'],
        ['invite', '--email', email, '--role', 'owner'],
        ['invite', '--email', email, '--role', 'Admin'],
        ['create', '--email', email, '--role', 'admin'],
        ['invite', '--email', email, '--role', 'admin', '--force'],
        ['invite', '--role', 'admin', '--email'],
      ];
      const runs = await Promise.all(cases.map((args) => runCli(database, args)));
      for (const [index, run] of runs.entries()) {
        const what = `operator ${cases[index]!.join(' ')}: ${run.stdout}\n${run.stderr}`;
        assert.equal(run.code, 2, what);
        assert.match(run.stderr, USAGE, what);
        assert.doesNotMatch(run.stderr, /\n\s+at /, `no stack trace: ${what}`);
        assert.doesNotMatch(run.stdout, /console\/setup/, what);
      }
      const open = await listAll(t, INVITATIONS, adminHeaders);
      assert.ok(!open.some((item) => item.email === email), 'nobody invited');
    });

    it('exits 1 saying so when the address is an operator already; a second invite of an open one replaces it', async () => {
      const t = started;
      const operator = await newOperator(t, 'reviewer');
      const refused = await runCli(database, ['invite', '--email', operator.email, '--role', 'admin']);
      assert.equal(refused.code, 1, `${refused.stdout}\n${refused.stderr}`);
      assert.match(refused.stderr, /already an operator/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(refused.stdout, /console\/setup/);
      const listed = (await operatorsList(t)).find((item) => item.id === operator.id);
      assert.equal(listed.role, 'reviewer', 'unchanged');

      const email = uniqueEmail('twice');
      const first = await runCli(database, ['invite', '--email', email, '--role', 'admin']);
      const second = await runCli(database, ['invite', '--email', email, '--role', 'reviewer']);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(second.code, 0, second.stderr);
      const [oldLink, newLink] = [LINK.exec(first.stdout)![0], LINK.exec(second.stdout)![0]];
      assert.notEqual(oldLink, newLink);
      assertError(await lookupInvitation(t, linkToken(oldLink)), 404, 'NOT_FOUND');
      const current = await lookupInvitation(t, linkToken(newLink));
      assert.equal(current.status, 200, current.text);
      assert.equal(current.body.data.role, 'reviewer');
    });
  });

  describe(`operator set-up from an invitation link [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { PUBLIC_URL } });

    it('invites with ADMIN_API_KEY: 201 with a one-time link under PUBLIC_URL; the link tells email, role and purpose', async () => {
      const { t } = suite;
      const email = uniqueEmail('ngozi');
      const before = t.clock.now();
      const response = await adminPost(t, INVITATIONS, {
        email: `  ${email.toUpperCase()} `,
        role: 'reviewer',
      });
      assert.equal(response.status, 201, response.text);
      const data = response.body.data;
      assert.match(data.id, UUID);
      assert.equal(data.email, email);
      assert.equal(data.role, 'reviewer');
      assert.equal(data.purpose, 'invite');
      assert.match(data.expires_at, ISO_INSTANT);
      assert.ok(Math.abs(Date.parse(data.expires_at) - (before + 72 * HOUR)) < 5000, data.expires_at);
      assert.ok(String(data.url).startsWith(`${PUBLIC_URL}/console/setup#token=`), data.url);
      const token = linkToken(data.url);

      const opened = await lookupInvitation(t, token);
      assert.equal(opened.status, 200, opened.text);
      assert.deepEqual(opened.body.data, {
        email,
        role: 'reviewer',
        purpose: 'invite',
        expires_at: data.expires_at,
      });
      assertError(await lookupInvitation(t, 'A'.repeat(43)), 404, 'NOT_FOUND', { what: 'unknown link' });
      assertError(await adminPost(t, INVITATIONS, { email, role: 'owner' }), 422, 'VALIDATION_FAILED', {
        fields: ['role'],
      });
      assertError(
        await adminPost(t, INVITATIONS, { email: 'nope', role: 'admin' }),
        422,
        'VALIDATION_FAILED',
        {
          fields: ['email'],
        },
      );
      assertError(await t.api.post(INVITATIONS, { email, role: 'admin' }), 401, 'UNAUTHENTICATED');
    });

    it('refuses a missing name and a weak, short or mismatched password with 422 naming the field', async () => {
      const { t } = suite;
      const email = uniqueEmail('weak');
      const token = await invite(t, email, 'reviewer');
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['no name', { password: STRONG, password_confirmation: STRONG }, ['name']],
        ['a blank name', { name: '   ', password: STRONG, password_confirmation: STRONG }, ['name']],
        ['no password', { name: 'Ada' }, ['password']],
        [
          'a common password',
          { name: 'Ada', password: 'password', password_confirmation: 'password' },
          ['password'],
        ],
        [
          'a common password',
          { name: 'Ada', password: '12345678', password_confirmation: '12345678' },
          ['password'],
        ],
        [
          'a short password',
          { name: 'Ada', password: 'Xk7#q', password_confirmation: 'Xk7#q' },
          ['password'],
        ],
        [
          'a 7-character password',
          { name: 'Ada', password: 'Zq8#vL2', password_confirmation: 'Zq8#vL2' },
          ['password'],
        ],
        [
          'the e-mail as password',
          { name: 'Ada', password: email, password_confirmation: email },
          ['password'],
        ],
        [
          'a mismatched confirmation',
          { name: 'Ada', password: STRONG, password_confirmation: `${STRONG}!` },
          ['password_confirmation'],
        ],
        ['no confirmation', { name: 'Ada', password: STRONG }, ['password_confirmation']],
        ['nothing', {}, ['name', 'password']],
        [
          'a name too long',
          { name: 'x'.repeat(101), password: STRONG, password_confirmation: STRONG },
          ['name'],
        ],
      ];
      for (const [what, body, fields] of cases) {
        const response = await enrol(t, token, body);
        assertError(response, 422, 'VALIDATION_FAILED', { fields, what });
      }
      // Nothing was kept: the link still works and nobody is an operator yet.
      assert.equal((await lookupInvitation(t, token)).status, 200);
      assertError(await acceptCode(t, token, '123456'), 409, 'SETUP_NOT_STARTED', {
        what: 'confirming before the set-up started',
      });
      assert.ok(!(await operatorsList(t)).some((item) => item.email === email));
      // An 8-character password is long enough.
      const secret = await startEnrolment(t, token, {
        name: 'Ada',
        password: 'Zq8#vL2m',
        password_confirmation: 'Zq8#vL2m',
      });
      assert.ok(secret.length > 0);
    });

    it('starts enrolment with a base32 secret and an otpauth URL (issuer, account, SHA1, 6 digits, 30 s)', async () => {
      const { t } = suite;
      const email = uniqueEmail('enrol');
      const token = await invite(t, email, 'admin');
      const response = await enrol(t, token, {
        name: '  Ngozi Okafor ',
        password: STRONG,
        password_confirmation: STRONG,
      });
      assert.equal(response.status, 200, response.text);
      const { secret, otpauth_url: otpauthUrl } = response.body.data as {
        secret: string;
        otpauth_url: string;
      };
      assert.match(secret, /^[A-Z2-7]+=*$/, 'RFC 4648 base32');
      assert.ok(secret.replace(/=+$/, '').length >= 32, 'at least 160 bits (RFC 4226 recommends 160)');

      const url = new URL(otpauthUrl);
      assert.equal(url.protocol, 'otpauth:');
      assert.equal(url.host, 'totp');
      const label = decodeURIComponent(url.pathname.slice(1));
      assert.equal(label, `BaaS Console:${email}`);
      assert.equal(url.searchParams.get('issuer'), 'BaaS Console');
      assert.equal(url.searchParams.get('secret'), secret);
      assert.equal(url.searchParams.get('algorithm'), 'SHA1');
      assert.equal(url.searchParams.get('digits'), '6');
      assert.equal(url.searchParams.get('period'), '30');

      // Started again, it draws a new secret: only the latest one confirms.
      const again = await startEnrolment(t, token, {
        name: 'Ngozi Okafor',
        password: STRONG,
        password_confirmation: STRONG,
      });
      assert.notEqual(again, secret);
      const oldCode = totp(secret, t.clock.now());
      if (![-1, 0, 1].some((step) => totp(again, t.clock.now() + step * 30_000) === oldCode)) {
        assertError(await acceptCode(t, token, oldCode), 422, 'OTP_INVALID', {
          what: 'the code of the replaced secret',
        });
      }
      const accepted = await accept(t, token, again);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.name, 'Ngozi Okafor', 'trimmed');
    });

    it('refuses a wrong code with 422 OTP_INVALID and makes nobody an operator', async () => {
      const { t } = suite;
      const email = uniqueEmail('wrong-code');
      const token = await invite(t, email, 'reviewer');
      const secret = await startEnrolment(t, token, {
        name: 'Ada',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const wrong = await acceptCode(t, token, notTheCode(secret, t.clock.now()));
      assertError(wrong, 422, 'OTP_INVALID');
      assert.equal(wrong.headers.get('set-cookie'), null);
      assertError(await acceptCode(t, token, '12345'), 422, 'VALIDATION_FAILED', {
        fields: ['code'],
      });
      assert.ok(!(await operatorsList(t)).some((item) => item.email === email));
      assert.equal((await lookupInvitation(t, token)).status, 200, 'the link still works');
      assert.equal((await accept(t, token, secret)).status, 201);
    });

    it('accepts the right code: 201, ten distinct recovery codes and a session cookie (HttpOnly, SameSite=Strict, Path=/, not Secure in test)', async () => {
      const { t } = suite;
      const email = uniqueEmail('accepted');
      const token = await invite(t, email, 'admin');
      const secret = await startEnrolment(t, token, {
        name: 'Ada Admin',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const acceptedAt = t.clock.now();
      const response = await acceptCode(t, token, totp(secret, acceptedAt));
      assert.equal(response.status, 201, response.text);
      const data = response.body.data;
      assert.match(data.operator.id, UUID);
      assert.deepEqual(data.operator, { id: data.operator.id, email, name: 'Ada Admin', role: 'admin' });
      assert.equal(data.idle_timeout_seconds, 1800);
      assert.ok(Math.abs(Date.parse(data.expires_at) - (acceptedAt + 8 * HOUR)) < 5000);

      const codes = data.recovery_codes as string[];
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10, 'distinct');
      for (const code of codes) {
        assert.equal(typeof code, 'string');
        assert.ok(code.replace(/[\s-]/g, '').length >= 10, `long enough to resist guessing: ${code}`);
        assert.doesNotMatch(code, /^[0-9]{6}$/, 'not mistaken for an authenticator code');
      }

      const cookie = theSetCookie(response);
      assert.equal(cookie.name, PLAIN_COOKIE);
      assert.equal(cookie.attributes['httponly'], true);
      assert.equal(cookie.attributes['samesite'], 'Strict');
      assert.equal(cookie.attributes['path'], '/');
      assert.equal(cookie.attributes['secure'], undefined, 'NODE_ENV=test is plain http');
      assert.equal(cookie.attributes['domain'], undefined);
      const session = sessionFrom(t, response);
      const current = await consoleGet(t, session, SESSION);
      assert.equal(current.status, 200, current.text);
      assert.equal(current.body.data.operator.email, email);
      assert.equal(current.body.data.csrf_token, data.csrf_token);

      const listed = (await operatorsList(t)).find((item) => item.email === email);
      assert.equal(listed.status, 'active');
      assert.equal(listed.second_factor, 'enrolled');
      const created = await auditEvents(t, { action: 'operator.created', actor_id: data.operator.id });
      assert.equal(created.length, 1);
      assert.deepEqual(created[0]?.actor, { type: 'operator', id: data.operator.id, email });

      // The link is used up.
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND');
      assertError(
        await enrol(t, token, {
          name: 'X',
          password: STRONG,
          password_confirmation: STRONG,
        }),
        404,
        'NOT_FOUND',
      );
      nextStep(t);
      assertError(await accept(t, token, secret), 404, 'NOT_FOUND');
      assert.equal((await operatorsList(t)).filter((item) => item.email === email).length, 1);
    });

    it('makes one operator when the same link is confirmed twice at once', async () => {
      const { t } = suite;
      const email = uniqueEmail('race');
      const token = await invite(t, email, 'reviewer');
      const secret = await startEnrolment(t, token, {
        name: 'Racer',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const answers = await Promise.all([1, 2, 3].map(() => accept(t, token, secret)));
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [201, 404, 404], answers.map((answer) => answer.text).join('\n'));
      for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
        assertError(answer, 404, 'NOT_FOUND');
        assert.equal(answer.headers.get('set-cookie'), null);
      }
      assert.equal((await operatorsList(t)).filter((item) => item.email === email).length, 1);
    });

    it('answers 410 INVITATION_EXPIRED to a link 72 hours old (73 h later), at every step', async () => {
      const { t } = suite;
      const fresh = await invite(t, uniqueEmail('fresh'), 'reviewer');
      const email = uniqueEmail('late');
      const token = await invite(t, email, 'reviewer');
      const secret = await startEnrolment(t, token, {
        name: 'Late',
        password: STRONG,
        password_confirmation: STRONG,
      });
      t.clock.advance(71 * HOUR);
      assert.equal((await lookupInvitation(t, token)).status, 200, 'still valid after 71 h');
      t.clock.advance(2 * HOUR);
      assertError(await lookupInvitation(t, token), 410, 'INVITATION_EXPIRED');
      assertError(
        await enrol(t, token, {
          name: 'Late',
          password: STRONG,
          password_confirmation: STRONG,
        }),
        410,
        'INVITATION_EXPIRED',
      );
      assertError(await accept(t, token, secret), 410, 'INVITATION_EXPIRED');
      assertError(await lookupInvitation(t, fresh), 410, 'INVITATION_EXPIRED');
      assert.ok(!(await operatorsList(t)).some((item) => item.email === email));
      const open = await listAll(t, INVITATIONS, adminHeaders);
      assert.ok(!open.some((item) => item.email === email), 'an expired invitation is not open');
      // A new invitation of the address works.
      const renewed = await invite(t, email, 'reviewer');
      assert.equal((await lookupInvitation(t, renewed)).status, 200);
    });

    it('replaces an open invitation when the same address is invited again: the old link answers 404', async () => {
      const { t } = suite;
      const email = uniqueEmail('again');
      const first = await invite(t, email, 'admin');
      const firstSecret = await startEnrolment(t, first, {
        name: 'Ada',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const second = await invite(t, email.toUpperCase(), 'reviewer');
      assert.notEqual(first, second);
      assertError(await lookupInvitation(t, first), 404, 'NOT_FOUND');
      assertError(await accept(t, first, firstSecret), 404, 'NOT_FOUND', { what: 'accepting the old link' });
      const open = (await listAll(t, INVITATIONS, adminHeaders)).filter((item) => item.email === email);
      assert.equal(open.length, 1);
      assert.equal(open[0].role, 'reviewer');
      const current = await lookupInvitation(t, second);
      assert.equal(current.body.data.role, 'reviewer');
      const secret = await startEnrolment(t, second, {
        name: 'Ada',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const accepted = await accept(t, second, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.role, 'reviewer');
    });

    it('refuses to invite an address that is an operator already (422 on email)', async () => {
      const { t } = suite;
      const operator = await newOperator(t, 'reviewer');
      for (const email of [operator.email, operator.email.toUpperCase()]) {
        assertError(await adminPost(t, INVITATIONS, { email, role: 'admin' }), 422, 'VALIDATION_FAILED', {
          fields: ['email'],
        });
      }
      const open = await listAll(t, INVITATIONS, adminHeaders);
      assert.ok(!open.some((item) => item.email === operator.email));
    });
  });

  describe(`operator roles [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    const REASON = 'The memorandum is illegible; upload a clearer scan.';

    const decide = (t: Api, session: ConsoleSession, companyId: number, action: string, body?: unknown) =>
      consolePost(t, session, adminPartnerUrl(companyId, action), body);

    it('lets a reviewer approve and reject documents and request changes (200)', async () => {
      const { t, sink } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const partner = await newPartner({ t, sink }, 'submitted');
      const documents = await pendingDocuments(t, partner.companyId);
      assert.ok(documents.length >= 2, JSON.stringify(documents));
      const memart = documents.find((document) => document.document_type === 'memart')!;
      for (const document of documents.filter((candidate) => candidate !== memart)) {
        const approved = await consolePost(
          t,
          reviewer.session,
          adminDocumentUrl(partner.companyId, document.id, 'approve'),
        );
        assert.equal(approved.status, 200, approved.text);
        assert.equal(approved.body.data.status, 'approved');
      }
      const rejected = await consolePost(
        t,
        reviewer.session,
        adminDocumentUrl(partner.companyId, memart.id, 'reject'),
        { reason: REASON },
      );
      assert.equal(rejected.status, 200, rejected.text);
      assert.equal(rejected.body.data.status, 'rejected');
      assert.equal(rejected.body.data.rejection_reason, REASON);

      const changes = await decide(t, reviewer.session, partner.companyId, 'request-changes', {
        reason: REASON,
      });
      assert.equal(changes.status, 200, changes.text);
      assert.equal(changes.body.data.onboarding_status, 'in_progress');
      assert.equal(changes.body.data.review_notes, REASON);
      assert.equal(await statusOf(t, partner.companyId), 'in_progress');
    });

    it('lets a reviewer read the queue, a partner record and a document file with the cookie alone', async () => {
      const { t, sink } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const partner = await newPartner({ t, sink }, 'submitted');
      const queue = await consoleGet(
        t,
        reviewer.session,
        `${ADMIN_PARTNERS}?onboarding_status=under_review&limit=100`,
      );
      assert.equal(queue.status, 200, queue.text);
      assert.ok(
        queue.body.data.items.some((item: { company_id: number }) => item.company_id === partner.companyId),
      );
      const record = await consoleGet(t, reviewer.session, adminPartnerUrl(partner.companyId));
      assert.equal(record.status, 200, record.text);
      const memart = (record.body.data.documents as AdminDocument[]).find(
        (document) => document.document_type === 'memart',
      )!;
      const file = await fetch(`${t.url}${adminDocumentUrl(partner.companyId, memart.id, 'file')}`, {
        headers: { cookie: cookieOf(reviewer.session) },
      });
      assert.equal(file.status, 200);
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), PDF_BYTES);
      const anonymous = await fetch(`${t.url}${adminDocumentUrl(partner.companyId, memart.id, 'file')}`);
      assert.equal(anonymous.status, 401);
    });

    it('refuses a reviewer approving, rejecting, suspending or reinstating a partner: 403 FORBIDDEN naming admins, nothing changed', async () => {
      const { t, sink } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const admin = await newOperator(t, 'admin');
      const partner = await newPartner({ t, sink }, 'submitted');
      for (const document of await pendingDocuments(t, partner.companyId)) {
        const approved = await consolePost(
          t,
          reviewer.session,
          adminDocumentUrl(partner.companyId, document.id, 'approve'),
        );
        assert.equal(approved.status, 200, approved.text);
      }
      const refusals: Array<[string, unknown]> = [
        ['approve', undefined],
        ['reject', { reason: 'Out of scope.' }],
      ];
      for (const [action, body] of refusals) {
        const response = await decide(t, reviewer.session, partner.companyId, action, body);
        assertError(response, 403, 'FORBIDDEN', { what: `reviewer ${action}` });
        assert.match(response.body.message, /admin/i, action);
      }
      const record = await partnerRecord(t, partner.companyId);
      assert.equal(record.onboarding_status, 'under_review');
      assert.equal(record.review_notes, null);

      // An admin can.
      const approved = await decide(t, admin.session, partner.companyId, 'approve');
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.body.data.onboarding_status, 'active');

      const suspend = await decide(t, reviewer.session, partner.companyId, 'suspend', {
        reason: 'Fraud signals.',
      });
      assertError(suspend, 403, 'FORBIDDEN', { what: 'reviewer suspend' });
      assert.match(suspend.body.message, /admin/i);
      assert.equal(await statusOf(t, partner.companyId), 'active');
      const suspended = await decide(t, admin.session, partner.companyId, 'suspend', {
        reason: 'Fraud signals.',
      });
      assert.equal(suspended.status, 200, suspended.text);
      assert.equal(suspended.body.data.onboarding_status, 'suspended');

      const reinstate = await decide(t, reviewer.session, partner.companyId, 'reinstate');
      assertError(reinstate, 403, 'FORBIDDEN', { what: 'reviewer reinstate' });
      assert.match(reinstate.body.message, /admin/i);
      assert.equal(await statusOf(t, partner.companyId), 'suspended');
      const reinstated = await decide(t, admin.session, partner.companyId, 'reinstate');
      assert.equal(reinstated.status, 200, reinstated.text);
      assert.equal(reinstated.body.data.onboarding_status, 'active');

      // And the final rejection.
      const other = await newPartner({ t, sink }, 'submitted');
      const reject = await decide(t, reviewer.session, other.companyId, 'reject', {
        reason: 'Out of scope.',
      });
      assertError(reject, 403, 'FORBIDDEN', { what: 'reviewer reject' });
      assert.equal(await statusOf(t, other.companyId), 'under_review');
      const rejected = await decide(t, admin.session, other.companyId, 'reject', { reason: 'Out of scope.' });
      assert.equal(rejected.status, 200, rejected.text);
      assert.equal(rejected.body.data.onboarding_status, 'rejected');

      const refusedChanges = await auditEvents(t, {
        actor_id: reviewer.id,
        action: 'onboarding.status_changed',
      });
      assert.deepEqual(refusedChanges, [], 'no status change by the reviewer');
    });

    it('refuses a reviewer managing operators (invite, list, deactivate, reset): 403 FORBIDDEN naming admins', async () => {
      const { t } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const colleague = await newOperator(t, 'reviewer');
      const email = uniqueEmail('by-reviewer');
      const attempts: Array<[string, () => ReturnType<typeof consolePost>]> = [
        ['invite', () => consolePost(t, reviewer.session, INVITATIONS, { email, role: 'reviewer' })],
        ['list invitations', () => consoleGet(t, reviewer.session, INVITATIONS)],
        ['list operators', () => consoleGet(t, reviewer.session, OPERATORS)],
        ['deactivate', () => consolePost(t, reviewer.session, operatorUrl(colleague.id, 'deactivate'))],
        ['reset', () => consolePost(t, reviewer.session, operatorUrl(colleague.id, 'reset-second-factor'))],
      ];
      for (const [what, attempt] of attempts) {
        const response = await attempt();
        assertError(response, 403, 'FORBIDDEN', { what });
        assert.match(response.body.message, /admin/i, what);
      }
      assert.ok(!(await listAll(t, INVITATIONS, adminHeaders)).some((item) => item.email === email));
      const listed = (await operatorsList(t)).find((item) => item.id === colleague.id);
      assert.equal(listed.status, 'active');
      assert.equal(listed.second_factor, 'enrolled');
      assert.equal((await consoleGet(t, colleague.session, SESSION)).status, 200, 'its session goes on');
    });

    it('names the operator in the audit trail, ADMIN_API_KEY as api_key; filters actor_type, actor_id and action work', async () => {
      const { t, sink } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const admin = await newOperator(t, 'admin');
      const partner = await newPartner({ t, sink }, 'submitted');
      const [first, ...rest] = await pendingDocuments(t, partner.companyId);
      const byReviewer = await consolePost(
        t,
        reviewer.session,
        adminDocumentUrl(partner.companyId, first!.id, 'approve'),
        undefined,
        { 'x-request-id': `reviewer-${partner.companyId}` },
      );
      assert.equal(byReviewer.status, 200, byReviewer.text);
      for (const document of rest) {
        const byKey = await adminPost(t, adminDocumentUrl(partner.companyId, document.id, 'approve'));
        assert.equal(byKey.status, 200, byKey.text);
      }
      const byAdmin = await consolePost(t, admin.session, adminPartnerUrl(partner.companyId, 'approve'));
      assert.equal(byAdmin.status, 200, byAdmin.text);

      const events = await auditEvents(t, { company_id: partner.companyId });
      const reviewerApproval = events.find(
        (event) => event.action === 'document.approved' && event.target?.id === first!.id,
      );
      assert.deepEqual(reviewerApproval?.actor, { type: 'operator', id: reviewer.id, email: reviewer.email });
      assert.equal(reviewerApproval?.company_id, partner.companyId);
      assert.equal(reviewerApproval?.ip, '127.0.0.1');
      for (const document of rest) {
        const approval = events.find(
          (event) => event.action === 'document.approved' && event.target?.id === document.id,
        );
        assert.deepEqual(approval?.actor, { type: 'api_key', id: null, email: null });
      }
      const activation = events.find(
        (event) => event.action === 'onboarding.status_changed' && event.metadata?.['to'] === 'active',
      );
      assert.deepEqual(activation?.actor, { type: 'operator', id: admin.id, email: admin.email });

      const mine = await auditEvents(t, { actor_type: 'operator', actor_id: reviewer.id });
      assert.ok(mine.length >= 2, 'created and the document decision');
      for (const event of mine)
        assert.deepEqual(event.actor, { type: 'operator', id: reviewer.id, email: reviewer.email });
      assert.ok(mine.some((event) => event.action === 'document.approved' && event.target?.id === first!.id));
      assert.ok(mine.some((event) => event.action === 'operator.created'));

      const keyed = await auditEvents(t, { actor_type: 'api_key', company_id: partner.companyId });
      assert.equal(keyed.length, rest.length);
      for (const event of keyed) assert.equal(event.actor.type, 'api_key');

      const approvals = await auditEvents(t, { action: 'document.approved', company_id: partner.companyId });
      assert.equal(approvals.length, rest.length + 1);
      for (const event of approvals) assert.equal(event.action, 'document.approved');
      const adminApprovals = await auditEvents(t, {
        action: 'document.approved',
        actor_id: admin.id,
        company_id: partner.companyId,
      });
      assert.deepEqual(adminApprovals, []);
      assert.deepEqual(await auditEvents(t, { actor_id: randomUUID() }), []);
      assertError(await adminGet(t, `${AUDIT_EVENTS}?actor_type=admin`), 422, 'VALIDATION_FAILED', {
        fields: ['actor_type'],
      });
      // An operator reads the audit trail from the console too.
      const fromConsole = await consoleGet(
        t,
        reviewer.session,
        `${AUDIT_EVENTS}?actor_id=${reviewer.id}&action=document.approved`,
      );
      assert.equal(fromConsole.status, 200, fromConsole.text);
      assert.equal(fromConsole.body.data.items.length, 1);
    });
  });

  describe(`operator management by admins [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { PUBLIC_URL } });

    it('invites from the console (201, the one-time link once); GET /admin/invitations lists it without the link', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const email = uniqueEmail('invitee');
      const response = await consolePost(t, admin.session, INVITATIONS, {
        email: email.toUpperCase(),
        role: 'reviewer',
      });
      assert.equal(response.status, 201, response.text);
      const invitation = response.body.data;
      assert.equal(invitation.email, email);
      assert.equal(invitation.purpose, 'invite');
      const token = linkToken(invitation.url);
      assert.ok(invitation.url.startsWith(PUBLIC_URL));

      const listed = await consoleGet(t, admin.session, `${INVITATIONS}?limit=100`);
      assert.equal(listed.status, 200, listed.text);
      const item = listed.body.data.items.find((candidate: { id: string }) => candidate.id === invitation.id);
      assert.deepEqual(Object.keys(item).sort(), [
        'created_at',
        'email',
        'expires_at',
        'id',
        'purpose',
        'role',
      ]);
      assert.equal(item.email, email);
      assert.equal(item.role, 'reviewer');
      assert.equal(item.expires_at, invitation.expires_at);
      assert.ok(!listed.text.includes(token), 'the link is never shown again');
      const audited = await auditEvents(t, { action: 'operator.invited', actor_id: admin.id });
      assert.equal(audited.length, 1);
      assert.deepEqual(audited[0]?.actor, { type: 'operator', id: admin.id, email: admin.email });
      assert.ok(!JSON.stringify(audited).includes(token));

      const secret = await startEnrolment(t, token, {
        name: 'Invitee',
        password: STRONG,
        password_confirmation: STRONG,
      });
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.body.data.operator.role, 'reviewer');
      const after = await consoleGet(t, admin.session, `${INVITATIONS}?limit=100`);
      assert.ok(!after.body.data.items.some((candidate: { id: string }) => candidate.id === invitation.id));
    });

    it('lists operators with role, status, second factor and last sign-in, never a secret', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const response = await consoleGet(t, admin.session, `${OPERATORS}?limit=100`);
      assert.equal(response.status, 200, response.text);
      const items = await listAll(t, OPERATORS, { cookie: cookieOf(admin.session) }, 2);
      const byId = new Map(items.map((item) => [item.id, item]));
      for (const operator of [admin, reviewer]) {
        const item = byId.get(operator.id);
        assert.deepEqual(Object.keys(item).sort(), [
          'created_at',
          'email',
          'id',
          'last_sign_in_at',
          'name',
          'role',
          'second_factor',
          'second_factor_locked_at',
          'status',
        ]);
        assert.equal(item.second_factor_locked_at, null);
        assert.equal(item.email, operator.email);
        assert.equal(item.name, operator.name);
        assert.equal(item.role, operator.role);
        assert.equal(item.status, 'active');
        assert.equal(item.second_factor, 'enrolled');
        assert.match(item.last_sign_in_at, ISO_INSTANT);
      }
      assert.equal(new Set(items.map((item) => item.id)).size, items.length, 'no operator twice');
      const text = JSON.stringify(items);
      for (const secret of [admin.secret, reviewer.secret, admin.password, reviewer.recoveryCodes[0]!]) {
        assert.ok(!text.includes(secret));
      }
    });

    it('deactivates an operator: its sessions stop at once (401) and password sign-in answers 403 saying deactivated', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const secondSession = await signInOperator(t, reviewer);
      nextStep(t);
      const pending = await passwordStep(t, reviewer);

      const response = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.id, reviewer.id);
      assert.equal(response.body.data.status, 'deactivated');

      for (const session of [reviewer.session, secondSession]) {
        assertError(await consoleGet(t, session, SESSION), 401, 'UNAUTHENTICATED');
        assertError(await consoleGet(t, session, ADMIN_PARTNERS), 401, 'UNAUTHENTICATED');
      }
      const finish = await t.api.post(SESSION_SECOND_FACTOR, {
        challenge: pending,
        code: totp(reviewer.secret, t.clock.now()),
      });
      assertError(finish, 403, 'FORBIDDEN', { what: 'a sign-in begun before the deactivation' });
      assert.equal(finish.headers.get('set-cookie'), null);

      const signIn = await t.api.post(SESSION_PASSWORD, {
        email: reviewer.email,
        password: reviewer.password,
      });
      assertError(signIn, 403, 'FORBIDDEN');
      assert.match(signIn.body.message, /deactivated/i);
      assertError(
        await t.api.post(SESSION_PASSWORD, { email: reviewer.email, password: `${reviewer.password}?` }),
        401,
        'INVALID_CREDENTIALS',
        { what: 'a wrong password says nothing of the account' },
      );

      const listed = (await operatorsList(t)).find((item) => item.id === reviewer.id);
      assert.equal(listed.status, 'deactivated');
      const audited = await auditEvents(t, { action: 'operator.deactivated', actor_id: admin.id });
      assert.equal(audited.length, 1);
      assert.deepEqual(audited[0]?.target, { type: 'operator', id: reviewer.id });
      assert.equal(audited[0]?.metadata?.['sessions_revoked'], 2);

      const again = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.data.status, 'deactivated');
      assertError(
        await consolePost(t, admin.session, operatorUrl(randomUUID(), 'deactivate')),
        404,
        'NOT_FOUND',
      );
      // The e-mail stays taken: a deactivated operator is not invited anew.
      assertError(
        await adminPost(t, INVITATIONS, { email: reviewer.email, role: 'reviewer' }),
        422,
        'VALIDATION_FAILED',
        {
          fields: ['email'],
        },
      );
    });

    it('refuses an admin deactivating itself (403 FORBIDDEN); it stays active', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const response = await consolePost(t, admin.session, operatorUrl(admin.id, 'deactivate'));
      assertError(response, 403, 'FORBIDDEN');
      assert.match(response.body.message, /yourself/i);
      assert.equal((await consoleGet(t, admin.session, SESSION)).status, 200);
      assert.equal((await operatorsList(t)).find((item) => item.id === admin.id).status, 'active');
    });

    it('resets a second factor: sessions end, sign-in points to the link, which enrols a new TOTP with the operator’s own password; old codes stop working', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const reset = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      assert.equal(reset.body.data.purpose, 'reset_second_factor');
      assert.equal(reset.body.data.email, reviewer.email);
      assert.equal(reset.body.data.role, 'reviewer');
      const token = linkToken(reset.body.data.url);

      assertError(await consoleGet(t, reviewer.session, SESSION), 401, 'UNAUTHENTICATED', {
        what: 'its session ends at once',
      });
      assert.equal(
        (await operatorsList(t)).find((item) => item.id === reviewer.id).second_factor,
        'reset_pending',
      );
      const signIn = await t.api.post(SESSION_PASSWORD, {
        email: reviewer.email,
        password: reviewer.password,
      });
      assertError(signIn, 403, 'FORBIDDEN');
      assert.match(signIn.body.message, /link/i);

      const opened = await lookupInvitation(t, token);
      assert.equal(opened.status, 200, opened.text);
      assert.equal(opened.body.data.purpose, 'reset_second_factor');
      assert.equal(opened.body.data.email, reviewer.email);
      const secret = await startEnrolment(t, token, { password: reviewer.password });
      assert.notEqual(secret, reviewer.secret);
      const accepted = await accept(t, token, secret);
      assert.equal(accepted.status, 201, accepted.text);
      assert.deepEqual(accepted.body.data.operator, {
        id: reviewer.id,
        email: reviewer.email,
        name: reviewer.name,
        role: 'reviewer',
      });
      const newCodes = accepted.body.data.recovery_codes as string[];
      assert.equal(newCodes.length, 10);
      assert.ok(!newCodes.some((code) => reviewer.recoveryCodes.includes(code)));
      assert.equal((await consoleGet(t, sessionFrom(t, accepted), SESSION)).status, 200);
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND', {
        what: 'the reset link is used up',
      });

      // The password stays; the new authenticator signs in.
      const session = await signInOperator(t, { ...reviewer, secret });
      assert.equal((await consoleGet(t, session, SESSION)).body.data.operator.id, reviewer.id);
      // Neither an old recovery code nor the old authenticator does.
      assertError(
        await t.api.post(SESSION_SECOND_FACTOR, {
          challenge: await passwordStep(t, reviewer),
          code: reviewer.recoveryCodes[1],
        }),
        422,
        'OTP_INVALID',
        { what: 'an old recovery code' },
      );
      nextStep(t);
      const oldCode = totp(reviewer.secret, t.clock.now());
      if (![-1, 0, 1].some((step) => totp(secret, t.clock.now() + step * 30_000) === oldCode)) {
        assertError(
          await t.api.post(SESSION_SECOND_FACTOR, {
            challenge: await passwordStep(t, reviewer),
            code: oldCode,
          }),
          422,
          'OTP_INVALID',
          { what: 'the old authenticator' },
        );
      }
      assert.equal(
        (
          await t.api.post(SESSION_SECOND_FACTOR, {
            challenge: await passwordStep(t, reviewer),
            code: newCodes[0],
          })
        ).status,
        200,
        'a new recovery code works',
      );

      const resetAudit = await auditEvents(t, { action: 'operator.second_factor_reset', actor_id: admin.id });
      assert.equal(resetAudit.length, 1);
      assert.deepEqual(resetAudit[0]?.target, { type: 'operator', id: reviewer.id });
      const enrolled = await auditEvents(t, {
        action: 'operator.second_factor_enrolled',
        actor_id: reviewer.id,
      });
      assert.equal(enrolled.length, 1);
      assert.deepEqual(enrolled[0]?.actor, { type: 'operator', id: reviewer.id, email: reviewer.email });
    });

    it('voids an open reset link when the operator is deactivated', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const reset = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      const token = linkToken(reset.body.data.url);
      const secret = await startEnrolment(t, token, { password: reviewer.password });
      const deactivated = await consolePost(t, admin.session, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(deactivated.status, 200, deactivated.text);
      assertError(await lookupInvitation(t, token), 404, 'NOT_FOUND');
      const accepted = await accept(t, token, secret);
      assert.ok([403, 404].includes(accepted.status), accepted.text);
      assert.equal(accepted.headers.get('set-cookie'), null);
      assertError(
        await consolePost(t, admin.session, operatorUrl(reviewer.id, 'reset-second-factor')),
        403,
        'FORBIDDEN',
        { what: 'resetting a deactivated operator' },
      );
    });

    it('lets ADMIN_API_KEY manage operators too (automation), audited as api_key', async () => {
      const { t } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const reset = await adminPost(t, operatorUrl(reviewer.id, 'reset-second-factor'));
      assert.equal(reset.status, 201, reset.text);
      const deactivated = await adminPost(t, operatorUrl(reviewer.id, 'deactivate'));
      assert.equal(deactivated.status, 200, deactivated.text);
      const audited = await auditEvents(t, { actor_type: 'api_key', action: 'operator.deactivated' });
      const event = audited.find((candidate) => candidate.target?.id === reviewer.id);
      assert.deepEqual(event?.actor, { type: 'api_key', id: null, email: null });
    });
  });

  describe(`review queue: waiting_since [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    async function queueItem(t: Api, companyId: number) {
      const items = await listAll(t, ADMIN_PARTNERS, adminHeaders);
      const item = items.find((candidate) => candidate.company_id === companyId);
      assert.ok(item, `partner ${companyId} in the list`);
      return item as { waiting_since: string | null; pending_review: string[]; onboarding_status: string };
    }

    it('is the submission time of an application under review, whatever happens meanwhile', async () => {
      const { t, sink } = suite;
      const fresh = await newPartner({ t, sink }, 'signed-in');
      assert.equal((await queueItem(t, fresh.companyId)).waiting_since, null, 'nothing awaits the operator');

      const partner = await newPartner({ t, sink }, 'submitted');
      const submission = (
        await auditEvents(t, { company_id: partner.companyId, action: 'onboarding.status_changed' })
      ).find((event) => event.metadata?.['to'] === 'under_review');
      assert.ok(submission);
      const item = await queueItem(t, partner.companyId);
      assert.equal(item.onboarding_status, 'under_review');
      assert.ok(item.pending_review.includes('application'));
      assert.equal(item.waiting_since, submission.created_at);

      t.clock.advance(2 * HOUR);
      const [document] = await pendingDocuments(t, partner.companyId);
      const decided = await adminPost(t, adminDocumentUrl(partner.companyId, document!.id, 'approve'));
      assert.equal(decided.status, 200, decided.text);
      assert.equal(
        (await queueItem(t, partner.companyId)).waiting_since,
        submission.created_at,
        'a document decision',
      );

      t.clock.advance(HOUR);
      assert.equal((await t.api.post(FORGOT_PASSWORD, { email: partner.email })).status, 200);
      const code = await sink.otpFor(partner.email, 2, 'password reset');
      const reset = await t.api.post(RESET_PASSWORD, {
        email: partner.email,
        otp: code,
        password: STRONG,
        password_confirmation: STRONG,
      });
      assert.equal(reset.status, 200, reset.text);
      assert.equal(
        (await queueItem(t, partner.companyId)).waiting_since,
        submission.created_at,
        'a password reset',
      );

      // Sent back and submitted again: the new submission counts.
      const changes = await adminPost(t, adminPartnerUrl(partner.companyId, 'request-changes'), {
        reason: 'More.',
      });
      assert.equal(changes.status, 200, changes.text);
      t.clock.advance(HOUR);
      const token = (await t.api.post(LOGIN, { email: partner.email, password: STRONG })).body.data
        .token as string;
      const resubmitted = await submit(t, token);
      assert.equal(resubmitted.status, 200, resubmitted.text);
      const resubmission = (
        await auditEvents(t, { company_id: partner.companyId, action: 'onboarding.status_changed' })
      ).find((event) => event.metadata?.['to'] === 'under_review');
      assert.notEqual(resubmission?.created_at, submission.created_at);
      assert.equal((await queueItem(t, partner.companyId)).waiting_since, resubmission?.created_at);
    });

    it('is the upload time of the oldest document awaiting review for an approved partner', async () => {
      const { t, sink } = suite;
      const partner = await newPartner({ t, sink }, 'active');
      const quiet = await queueItem(t, partner.companyId);
      assert.equal(quiet.waiting_since, null);
      assert.deepEqual(quiet.pending_review, []);

      t.clock.advance(20 * MINUTE);
      const older = await postDocument(
        t,
        partner.token,
        { document_type: 'tin_certificate' },
        { file: { bytes: PDF_BYTES, name: 'tin.pdf' } },
      );
      assert.equal(older.status, 201, older.text);
      t.clock.advance(20 * MINUTE);
      const newer = await postDocument(
        t,
        partner.token,
        { document_type: 'cac_status_report' },
        { file: { bytes: PDF_BYTES, name: 'status.pdf' } },
      );
      assert.equal(newer.status, 201, newer.text);
      assert.ok(older.body.data.uploaded_at < newer.body.data.uploaded_at);

      const waiting = await queueItem(t, partner.companyId);
      assert.equal(waiting.onboarding_status, 'active');
      assert.deepEqual([...waiting.pending_review].sort(), [
        'documents.cac_status_report',
        'documents.tin_certificate',
      ]);
      assert.equal(waiting.waiting_since, older.body.data.uploaded_at);

      t.clock.advance(20 * MINUTE);
      const first = await adminPost(t, adminDocumentUrl(partner.companyId, older.body.data.id, 'approve'));
      assert.equal(first.status, 200, first.text);
      assert.equal((await queueItem(t, partner.companyId)).waiting_since, newer.body.data.uploaded_at);
      const second = await adminPost(t, adminDocumentUrl(partner.companyId, newer.body.data.id, 'reject'), {
        reason: 'Expired report.',
      });
      assert.equal(second.status, 200, second.text);
      assert.equal((await queueItem(t, partner.companyId)).waiting_since, null);
    });
  });

  describe(`operators without ADMIN_API_KEY [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { ADMIN_API_KEY: '' } });

    it('answers 404 NOT_FOUND on every operator path, with or without a cookie or bearer', async () => {
      const { t } = suite;
      const token = 'A'.repeat(43);
      const id = randomUUID();
      const requests: Array<[string, string, unknown?]> = [
        ['POST', SESSION_PASSWORD, { email: 'ngozi@operator.ng', password: STRONG }],
        ['POST', SESSION_SECOND_FACTOR, { challenge: 'x'.repeat(43), code: '123456' }],
        ['GET', SESSION],
        ['POST', SESSION_LOGOUT],
        ['POST', INVITATION_LOOKUP, { token }],
        [
          'POST',
          INVITATION_SECOND_FACTOR,
          { token, name: 'Ada', password: STRONG, password_confirmation: STRONG },
        ],
        ['POST', INVITATION_ACCEPT, { token, code: '123456' }],
        ['POST', ME_PASSWORD, { current_password: STRONG, password: STRONG, password_confirmation: STRONG }],
        ['GET', ME_SESSIONS],
        ['POST', INVITATIONS, { email: 'ngozi@operator.ng', role: 'admin' }],
        ['GET', INVITATIONS],
        ['GET', OPERATORS],
        ['POST', operatorUrl(id, 'deactivate')],
        ['POST', operatorUrl(id, 'reset-second-factor')],
        ['GET', `${AUDIT_EVENTS}?actor_type=operator&actor_id=${id}`],
      ];
      const cookieHeaders = {
        cookie: `${PLAIN_COOKIE}=${'B'.repeat(43)}`,
        'x-csrf-token': 'x'.repeat(43),
        origin: t.url,
      };
      for (const [method, path, body] of requests) {
        for (const headers of [{}, adminHeaders, cookieHeaders]) {
          const response = await t.api.request(method, path, { headers, ...(body ? { json: body } : {}) });
          assertError(response, 404, 'NOT_FOUND', {
            what: `${method} ${path} ${Object.keys(headers).join(',')}`,
          });
          assert.equal(response.headers.get('set-cookie'), null);
        }
      }
    });
  });
}
