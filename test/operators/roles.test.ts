import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdminDocument, adminGet, adminHeaders, adminPost, partnerRecord } from '../support/admin.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { PDF_BYTES, uniqueEmail } from '../support/factories.js';
import { listAll } from '../support/http.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, AUDIT_EVENTS, adminDocumentUrl, adminPartnerUrl } from '../support/paths.js';
import {
  auditEvents,
  type ConsoleSession,
  consoleGet,
  consolePost,
  cookieOf,
  INVITATIONS,
  newOperator,
  OPERATORS,
  operatorsList,
  operatorUrl,
  pendingDocuments,
  SESSION,
} from './operator-kit.js';

type Api = Pick<TestApp, 'api' | 'clock' | 'url'>;

/** The statuses of the operators' decisions seen from the partner record. */
const statusOf = async (t: Api, companyId: number) =>
  (await partnerRecord(t, companyId)).onboarding_status as string;

for (const dialect of DIALECTS) {
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
      assert.deepEqual(reviewerApproval?.actor, {
        type: 'operator',
        id: reviewer.id,
        name: reviewer.name,
        email: reviewer.email,
      });
      assert.equal(reviewerApproval?.company_id, partner.companyId);
      assert.equal(reviewerApproval?.ip, '127.0.0.1');
      for (const document of rest) {
        const approval = events.find(
          (event) => event.action === 'document.approved' && event.target?.id === document.id,
        );
        assert.deepEqual(approval?.actor, { type: 'api_key', id: null, name: null, email: null });
      }
      const activation = events.find(
        (event) => event.action === 'onboarding.status_changed' && event.metadata?.['to'] === 'active',
      );
      assert.deepEqual(activation?.actor, {
        type: 'operator',
        id: admin.id,
        name: admin.name,
        email: admin.email,
      });

      const mine = await auditEvents(t, { actor_type: 'operator', actor_id: reviewer.id });
      assert.ok(mine.length >= 2, 'created and the document decision');
      for (const event of mine)
        assert.deepEqual(event.actor, {
          type: 'operator',
          id: reviewer.id,
          name: reviewer.name,
          email: reviewer.email,
        });
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
}
