import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminGet, adminHeaders, adminPost, partnerRecord } from '../support/admin.js';
import { type AppContext, DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError, ISO_INSTANT, UUID, until } from '../support/assertions.js';
import { listAll } from '../support/http.js';
import { parseMail } from '../support/mime.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, ADMIN_PREFIX, adminDocumentUrl, adminPartnerUrl } from '../support/paths.js';
import {
  auditEvents,
  type ConsoleSession,
  consoleGet,
  consolePost,
  newOperator,
  type TestOperator,
} from './operator-kit.js';

/*
 * Four eyes (docs/operator-guide.md, "Four eyes"): with REQUIRE_FOUR_EYES=true an admin's approve,
 * suspend and reinstate are proposals that another admin confirms or declines; nobody confirms their
 * own, the admin API key never confirms, and of racing settlements exactly one wins.
 */

const PROPOSALS = `${ADMIN_PREFIX}proposals`;
const proposalUrl = (id: string, action?: 'confirm' | 'decline' | 'withdraw') =>
  `${PROPOSALS}/${id}${action ? `/${action}` : ''}`;

type Api = Pick<TestApp, 'api'>;
const confirm = (t: Api, by: ConsoleSession, id: string) => consolePost(t, by, proposalUrl(id, 'confirm'));
const decline = (t: Api, by: ConsoleSession, id: string, reason?: string) =>
  consolePost(t, by, proposalUrl(id, 'decline'), reason === undefined ? {} : { reason });
const withdraw = (t: Api, by: ConsoleSession, id: string) => consolePost(t, by, proposalUrl(id, 'withdraw'));

const noteOf = (what: string) => `STR ${what} ${randomBytes(6).toString('hex')}: do not disclose.`;

/** Approves every current document (not gated), as the review does before an approval. */
async function approveDocuments(t: Api, companyId: number) {
  const record = await partnerRecord(t, companyId);
  for (const document of record.documents) {
    if (!document.current || document.status !== 'pending_review') continue;
    const approved = await adminPost(t, adminDocumentUrl(companyId, document.id, 'approve'));
    assert.equal(approved.status, 200, approved.text);
  }
}

/** A partner made active under four eyes: the admin API key proposes, `confirmer` confirms. */
async function activePartner(suite: AppContext, confirmer: TestOperator) {
  const partner = await newPartner(suite, 'submitted');
  await approveDocuments(suite.t, partner.companyId);
  const proposed = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'approve'));
  assert.equal(proposed.status, 202, proposed.text);
  const confirmed = await confirm(suite.t, confirmer.session, proposed.body.data.id);
  assert.equal(confirmed.status, 200, confirmed.text);
  return partner;
}

/** The notifications (not the codes) sent to `address`, once every one queued is in the SMTP sink. */
async function noticesTo(suite: AppContext, address: string) {
  const queued = await until(`the e-mails to ${address} to be sent`, async () => {
    const rows = await suite.t.db
      .selectFrom('mail_outbox')
      .select(['status'])
      .where('recipient', '=', address)
      .execute();
    return rows.every((row) => row.status === 'sent') && rows;
  });
  await suite.sink.waitForMail(address, queued.length);
  return suite.sink
    .mailsTo(address)
    .map((mail) => parseMail(mail.raw))
    .filter((mail) => !/code$/.test(mail.subject));
}

for (const dialect of DIALECTS) {
  describe(`four eyes [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { REQUIRE_FOUR_EYES: 'true', MAIL_POLL_MS: '50' } });

    it('proposes a suspension (202, nothing changes), refuses a second one and self-confirmation; another admin confirms: suspended, audited, one e-mail', async () => {
      const { t } = suite;
      const [first, second] = [await newOperator(t, 'admin'), await newOperator(t, 'admin')];
      const reviewer = await newOperator(t, 'reviewer');
      const partner = await activePartner(suite, second);
      const before = (await noticesTo(suite, partner.email)).length;
      const reason = 'Your account is under review; our compliance team will contact you.';
      const note = noteOf('suspend');

      const proposed = await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason,
        internal_note: note,
      });
      assert.equal(proposed.status, 202, proposed.text);
      assert.equal(proposed.body.message, 'Suspension proposed: another admin must confirm it.');
      const proposal = proposed.body.data;
      assert.match(proposal.id, UUID);
      assert.match(proposal.created_at, ISO_INSTANT);
      assert.deepEqual(
        {
          action: proposal.action,
          company_id: proposal.company_id,
          status: proposal.status,
          reason: proposal.reason,
          internal_note: proposal.internal_note,
          proposed_by: proposal.proposed_by,
          settled_by: proposal.settled_by,
        },
        {
          action: 'suspend',
          company_id: partner.companyId,
          status: 'pending',
          reason,
          internal_note: note,
          proposed_by: { type: 'operator', id: first.id, name: first.name },
          settled_by: null,
        },
      );
      const record = await partnerRecord(t, partner.companyId);
      assert.equal(record.onboarding_status, 'active', 'a proposal changes nothing');
      assert.equal(record.pending_proposal.id, proposal.id);
      const queued = (await listAll(t, ADMIN_PARTNERS, adminHeaders)).find(
        (item) => item.company_id === partner.companyId,
      );
      assert.equal(queued?.pending_proposal?.id, proposal.id, 'the partner list marks the proposal');

      const again = await consolePost(t, second.session, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason: 'Another reason.',
      });
      assertError(again, 409, 'PROPOSAL_PENDING');
      assert.match(again.body.message, new RegExp(first.name));

      // Every other active admin is asked; the proposer and reviewers are not, and no e-mail has the note.
      const awaiting = (mails: Array<{ subject: string }>) =>
        mails.filter((mail) => mail.subject.startsWith('Awaiting your confirmation: suspend'));
      const asked = awaiting(await noticesTo(suite, second.email));
      assert.equal(
        asked.length,
        1,
        "the other admin is asked once (the approval before it was the API key's)",
      );
      assert.equal(asked[0]!.subject, 'Awaiting your confirmation: suspend Acme Payments Ltd');
      const askedMail = (await noticesTo(suite, second.email)).find(
        (mail) => mail.subject === asked[0]!.subject,
      )!;
      assert.ok(askedMail.text?.includes(first.name) && askedMail.text.includes(reason), askedMail.text);
      assert.ok(
        !askedMail.text?.includes(note) && !askedMail.html?.includes(note),
        'never the internal note',
      );
      assert.ok(askedMail.html?.includes(`/console/partners/${partner.companyId}`), 'links the partner');
      assert.equal(awaiting(await noticesTo(suite, first.email)).length, 0, 'not the proposer');
      assert.equal(awaiting(await noticesTo(suite, reviewer.email)).length, 0, 'not a reviewer');

      const own = await confirm(t, first.session, proposal.id);
      assertError(own, 403, 'FORBIDDEN');
      assert.match(own.body.message, /another admin must confirm/);
      assertError(await adminPost(t, proposalUrl(proposal.id, 'confirm')), 403, 'FORBIDDEN');
      assertError(await confirm(t, reviewer.session, proposal.id), 403, 'FORBIDDEN');
      assertError(await decline(t, reviewer.session, proposal.id), 403, 'FORBIDDEN');
      const seen = await consoleGet(t, reviewer.session, proposalUrl(proposal.id));
      assert.equal(seen.status, 200, 'a reviewer reads proposals');
      assertError(await withdraw(t, second.session, proposal.id), 403, 'FORBIDDEN');
      assertError(await decline(t, first.session, proposal.id), 403, 'FORBIDDEN');
      assert.equal((await partnerRecord(t, partner.companyId)).onboarding_status, 'active');

      const confirmed = await confirm(t, second.session, proposal.id);
      assert.equal(confirmed.status, 200, confirmed.text);
      assert.equal(confirmed.body.data.status, 'confirmed');
      assert.deepEqual(confirmed.body.data.settled_by, {
        type: 'operator',
        id: second.id,
        name: second.name,
      });
      const after = await partnerRecord(t, partner.companyId);
      assert.equal(after.onboarding_status, 'suspended');
      assert.equal(after.review_notes, reason);
      assert.equal(after.internal_note, note);
      assert.equal(after.pending_proposal, null);

      const events = await auditEvents(t, { company_id: partner.companyId });
      const created = events.find((e) => e.action === 'proposal.created' && e.target?.id === proposal.id);
      assert.equal(created?.actor.id, first.id);
      assert.equal(created?.metadata?.['internal_note'], note);
      const confirmation = events.find((e) => e.action === 'proposal.confirmed');
      assert.equal(confirmation?.actor.id, second.id);
      assert.equal(confirmation?.metadata?.['proposed_by_id'], first.id);
      const moved = events.find(
        (e) => e.action === 'onboarding.status_changed' && e.metadata?.['to'] === 'suspended',
      );
      assert.equal(moved?.actor.id, second.id, 'the status change names who confirmed it');
      assert.equal(moved?.request_id, confirmation?.request_id, 'in the same request');

      const notices = await until('the suspension e-mail', async () => {
        const all = await noticesTo(suite, partner.email);
        return all.length > before && all;
      });
      assert.equal(notices.length, before + 1, 'exactly one e-mail');
      const mail = notices.at(-1)!;
      assert.equal(mail.subject, 'Acme Payments Ltd: your live access is suspended');
      assert.ok(mail.text?.includes(reason), mail.text);
      assert.ok(!mail.text?.includes(note) && !mail.html?.includes(note), 'never the internal note');

      assertError(await confirm(t, second.session, proposal.id), 409, 'PROPOSAL_SETTLED');
    });

    it('lets another admin decline (nothing changes) and the proposer withdraw; both audited', async () => {
      const { t, sink } = suite;
      const [first, second] = [await newOperator(t, 'admin'), await newOperator(t, 'admin')];
      const partner = await newPartner({ t, sink }, 'submitted');
      const early = await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'approve'));
      assertError(early, 409, 'ONBOARDING_INCOMPLETE');
      await approveDocuments(t, partner.companyId);

      const proposed = await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'approve'));
      assert.equal(proposed.status, 202, proposed.text);
      const declined = await decline(t, second.session, proposed.body.data.id, 'Call the director first.');
      assert.equal(declined.status, 200, declined.text);
      assert.equal(declined.body.data.status, 'declined');
      assert.equal(declined.body.data.decline_reason, 'Call the director first.');
      assert.equal((await partnerRecord(t, partner.companyId)).onboarding_status, 'under_review');
      assertError(await confirm(t, second.session, proposed.body.data.id), 409, 'PROPOSAL_SETTLED');

      const again = await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'approve'));
      assert.equal(again.status, 202, 'a declined proposal no longer blocks a new one');
      const withdrawn = await withdraw(t, first.session, again.body.data.id);
      assert.equal(withdrawn.status, 200, withdrawn.text);
      assert.equal(withdrawn.body.data.status, 'withdrawn');
      assertError(await withdraw(t, first.session, again.body.data.id), 409, 'PROPOSAL_SETTLED');
      assert.equal((await partnerRecord(t, partner.companyId)).onboarding_status, 'under_review');

      const third = await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'approve'));
      assert.equal(third.status, 202, third.text);
      const bare = await consolePost(t, second.session, proposalUrl(third.body.data.id, 'decline'));
      assert.equal(bare.status, 200, `a decline needs no body: ${bare.text}`);
      assert.equal(bare.body.data.decline_reason, null);

      const events = await auditEvents(t, { company_id: partner.companyId });
      const declinedEvent = events.find(
        (e) => e.action === 'proposal.declined' && e.target?.id === proposed.body.data.id,
      );
      assert.equal(declinedEvent?.actor.id, second.id);
      assert.equal(declinedEvent?.metadata?.['reason'], 'Call the director first.');
      assert.equal(events.find((e) => e.action === 'proposal.withdrawn')?.actor.id, first.id);

      const listed = await consoleGet(t, second.session, `${PROPOSALS}?company_id=${partner.companyId}`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.items.map((item: { status: string }) => item.status),
        ['declined', 'withdrawn', 'declined'],
      );
      const pending = await listAll(
        t,
        `${PROPOSALS}?status=pending&company_id=${partner.companyId}`,
        adminHeaders,
        1,
      );
      assert.deepEqual(pending, []);
      const one = await adminGet(t, proposalUrl(proposed.body.data.id));
      assert.equal(one.body.data.status, 'declined');
      assertError(await adminGet(t, proposalUrl('00000000-0000-7000-8000-000000000000')), 404, 'NOT_FOUND');
    });

    it('settles racing confirmations and a withdrawal with exactly one winner: one status change, one e-mail', async () => {
      const { t } = suite;
      const proposer = await newOperator(t, 'admin');
      const admins = await Promise.all([1, 2, 3].map(() => newOperator(t, 'admin')));
      const partner = await activePartner(suite, admins[0]!);
      const before = (await noticesTo(suite, partner.email)).length;
      const proposed = await consolePost(t, proposer.session, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason: 'Routine review.',
      });
      assert.equal(proposed.status, 202, proposed.text);
      const id = proposed.body.data.id;

      const answers = await Promise.all([
        ...admins.map((admin) => confirm(t, admin.session, id)),
        withdraw(t, proposer.session, id),
      ]);
      const won = answers.filter((answer) => answer.status === 200);
      assert.equal(won.length, 1, answers.map((answer) => answer.text).join('\n'));
      for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
        assertError(answer, 409, 'PROPOSAL_SETTLED');
      }
      const outcome = won[0]!.body.data.status as string;
      const status = (await partnerRecord(t, partner.companyId)).onboarding_status;
      assert.equal(status, outcome === 'confirmed' ? 'suspended' : 'active');
      const moves = (await auditEvents(t, { company_id: partner.companyId })).filter(
        (e) => e.action === 'onboarding.status_changed' && e.metadata?.['to'] === 'suspended',
      );
      assert.equal(moves.length, outcome === 'confirmed' ? 1 : 0);
      if (outcome === 'confirmed') {
        const notices = await until('the suspension e-mail', async () => {
          const all = await noticesTo(suite, partner.email);
          return all.length > before && all;
        });
        assert.equal(notices.length, before + 1, 'one e-mail');
      }
    });

    it('gives one of racing proposals of the same decision the pending slot: the others get 409 PROPOSAL_PENDING', async () => {
      const { t } = suite;
      const admins = await Promise.all([1, 2, 3, 4].map(() => newOperator(t, 'admin')));
      const partner = await activePartner(suite, admins[0]!);
      const answers = await Promise.all(
        admins.map((admin) =>
          consolePost(t, admin.session, adminPartnerUrl(partner.companyId, 'suspend'), { reason: 'Review.' }),
        ),
      );
      assert.equal(
        answers.filter((answer) => answer.status === 202).length,
        1,
        answers.map((a) => a.text).join('\n'),
      );
      for (const answer of answers.filter((candidate) => candidate.status !== 202)) {
        assertError(answer, 409, 'PROPOSAL_PENDING');
      }
    });

    it("voids a pending proposal when the partner's status moves first, and checks the status when proposing", async () => {
      const { t, sink } = suite;
      const [first, second] = [await newOperator(t, 'admin'), await newOperator(t, 'admin')];
      const reviewer = await newOperator(t, 'reviewer');
      const partner = await newPartner({ t, sink }, 'submitted');
      await approveDocuments(t, partner.companyId);
      assertError(
        await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'suspend'), { reason: 'x' }),
        409,
        'ONBOARDING_LOCKED',
      );
      assertError(
        await consolePost(t, reviewer.session, adminPartnerUrl(partner.companyId, 'approve')),
        403,
        'FORBIDDEN',
      );
      const proposed = await consolePost(t, first.session, adminPartnerUrl(partner.companyId, 'approve'));
      assert.equal(proposed.status, 202, proposed.text);

      const changes = await consolePost(
        t,
        reviewer.session,
        adminPartnerUrl(partner.companyId, 'request-changes'),
        {
          reason: 'Add your website.',
        },
      );
      assert.equal(changes.status, 200, changes.text);
      const voided = await adminGet(t, proposalUrl(proposed.body.data.id));
      assert.equal(voided.body.data.status, 'void');
      const late = await confirm(t, second.session, proposed.body.data.id);
      assertError(late, 409, 'PROPOSAL_SETTLED');
      assert.match(late.body.message, /void/);
      assert.equal((await partnerRecord(t, partner.companyId)).onboarding_status, 'in_progress');
      const audited = (await auditEvents(t, { company_id: partner.companyId })).find(
        (e) => e.action === 'proposal.voided',
      );
      assert.equal(audited?.actor.id, reviewer.id, 'voided by the change that moved the status');
    });

    it('lets the admin API key propose and withdraw its own, never confirm or decline; a person confirms its proposal', async () => {
      const { t } = suite;
      const admin = await newOperator(t, 'admin');
      const partner = await activePartner(suite, admin);
      const proposed = await adminPost(t, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason: 'Review.',
      });
      assert.equal(proposed.status, 202, proposed.text);
      assert.deepEqual(proposed.body.data.proposed_by, { type: 'api_key', id: null, name: null });
      const id = proposed.body.data.id;
      assertError(await adminPost(t, proposalUrl(id, 'confirm')), 403, 'FORBIDDEN');
      assertError(await adminPost(t, proposalUrl(id, 'decline'), {}), 403, 'FORBIDDEN');
      assertError(await withdraw(t, admin.session, id), 403, 'FORBIDDEN');
      const withdrawn = await adminPost(t, proposalUrl(id, 'withdraw'));
      assert.equal(withdrawn.status, 200, withdrawn.text);
      assert.deepEqual(withdrawn.body.data.settled_by, { type: 'api_key', id: null, name: null });
      const events = await auditEvents(t, { company_id: partner.companyId });
      assert.equal(events.find((e) => e.action === 'proposal.withdrawn')?.actor.type, 'api_key');

      const reinstated = await adminPost(t, adminPartnerUrl(partner.companyId, 'reinstate'));
      assertError(reinstated, 409, 'ONBOARDING_LOCKED');
    });
  });

  describe(`four eyes off [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { REQUIRE_FOUR_EYES: 'false' } });

    it('makes approve, suspend and reinstate at once (200), with no proposal', async () => {
      const { t, sink } = suite;
      const admin = await newOperator(t, 'admin');
      const partner = await newPartner({ t, sink }, 'submitted');
      await approveDocuments(t, partner.companyId);
      for (const [action, body, status] of [
        ['approve', undefined, 'active'],
        ['suspend', { reason: 'Review.' }, 'suspended'],
        ['reinstate', undefined, 'active'],
      ] as const) {
        const answer = await consolePost(t, admin.session, adminPartnerUrl(partner.companyId, action), body);
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.data.onboarding_status, status);
        assert.equal(answer.body.data.pending_proposal, null);
      }
      const listed = await consoleGet(t, admin.session, PROPOSALS);
      assert.deepEqual(listed.body.data.items, []);
    });
  });
}
