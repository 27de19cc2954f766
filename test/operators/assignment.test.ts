import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminHeaders, partnerRecord } from '../support/admin.js';
import { DIALECTS, type TestApp, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { listAll } from '../support/http.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS, adminPartnerUrl } from '../support/paths.js';
import { auditEvents, type ConsoleSession, cookieOf, newOperator } from './operator-kit.js';

type Api = Pick<TestApp, 'api'>;

const changeHeaders = (session: ConsoleSession) => ({
  cookie: cookieOf(session),
  'x-csrf-token': session.csrf,
  origin: session.origin,
});

/** Claims (no operator_id) or assigns the partner as the console would. */
const assign = (t: Api, session: ConsoleSession, companyId: number, operatorId?: string) =>
  t.api.put(
    adminPartnerUrl(companyId, 'assignee'),
    operatorId === undefined ? {} : { operator_id: operatorId },
    { headers: changeHeaders(session) },
  );
const unassign = (t: Api, session: ConsoleSession, companyId: number) =>
  t.api.delete(adminPartnerUrl(companyId, 'assignee'), { headers: changeHeaders(session) });

/** The queue's item for a partner, read as an admin would. */
async function queueItem(t: Api, companyId: number, query = '') {
  const items = await listAll(t, `${ADMIN_PARTNERS}?pending_review=true${query}`, adminHeaders);
  return items.find((item) => item.company_id === companyId);
}

for (const dialect of DIALECTS) {
  describe(`assigning reviews [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);

    it('lets a reviewer claim a partner nobody works on: the queue and the record name them, and the claim is audited', async () => {
      const { t, sink } = suite;
      const reviewer = await newOperator(t, 'reviewer');
      const partner = await newPartner({ t, sink }, 'submitted');
      assert.equal((await queueItem(t, partner.companyId))?.assigned_to, null);

      const claimed = await assign(t, reviewer.session, partner.companyId);
      assert.equal(claimed.status, 200, claimed.text);
      assert.deepEqual(claimed.body.data.assigned_to, { id: reviewer.id, name: reviewer.name });
      assert.ok(Date.parse(claimed.body.data.assigned_at) > 0);

      assert.deepEqual((await queueItem(t, partner.companyId))?.assigned_to, {
        id: reviewer.id,
        name: reviewer.name,
      });
      assert.deepEqual((await partnerRecord(t, partner.companyId)).assigned_to, {
        id: reviewer.id,
        name: reviewer.name,
      });
      const audited = (await auditEvents(t, { company_id: partner.companyId })).find(
        (event) => event.action === 'partner.assigned',
      );
      assert.ok(audited, 'the claim is audited');
      assert.equal(audited.actor.id, reviewer.id);
      assert.equal(audited.metadata?.['operator_id'], reviewer.id);
      assert.equal(audited.metadata?.['previous_operator_id'], null);

      const again = await assign(t, reviewer.session, partner.companyId);
      assert.equal(again.status, 200, 'claiming one’s own again changes nothing');
    });

    it('refuses a second reviewer’s claim (409 ALREADY_ASSIGNED naming who has it) and their assigning or unassigning others (403 / 409)', async () => {
      const { t, sink } = suite;
      const first = await newOperator(t, 'reviewer');
      const second = await newOperator(t, 'reviewer');
      const partner = await newPartner({ t, sink }, 'submitted');
      assert.equal((await assign(t, first.session, partner.companyId)).status, 200);

      const taken = await assign(t, second.session, partner.companyId);
      assertError(taken, 409, 'ALREADY_ASSIGNED');
      assert.match(taken.body.message, new RegExp(first.name));
      assertError(await assign(t, second.session, partner.companyId, second.id), 409, 'ALREADY_ASSIGNED');
      assertError(await assign(t, second.session, partner.companyId, first.id), 403, 'FORBIDDEN');
      assertError(await unassign(t, second.session, partner.companyId), 409, 'ALREADY_ASSIGNED');
      assert.equal((await partnerRecord(t, partner.companyId)).assigned_to.id, first.id);

      const letGo = await unassign(t, first.session, partner.companyId);
      assert.equal(letGo.status, 200, letGo.text);
      assert.equal(letGo.body.data.assigned_to, null);
      assert.equal((await assign(t, second.session, partner.companyId)).status, 200);
    });

    it('gives one of many racing claims the partner: the others get 409', async () => {
      const { t, sink } = suite;
      const reviewers = await Promise.all(Array.from({ length: 4 }, () => newOperator(t, 'reviewer')));
      const partner = await newPartner({ t, sink }, 'submitted');
      const answers = await Promise.all(
        reviewers.map((reviewer) => assign(t, reviewer.session, partner.companyId)),
      );
      const won = answers.filter((answer) => answer.status === 200);
      assert.equal(won.length, 1, answers.map((answer) => answer.text).join('\n'));
      for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
        assertError(answer, 409, 'ALREADY_ASSIGNED');
      }
      const holder = (await partnerRecord(t, partner.companyId)).assigned_to.id;
      assert.equal(holder, won[0]!.body.data.assigned_to.id);
    });

    it('lets an admin reassign and unassign anyone, audited with the previous assignee; the queue filters by assignee', async () => {
      const { t, sink } = suite;
      const admin = await newOperator(t, 'admin');
      const reviewer = await newOperator(t, 'reviewer');
      const other = await newOperator(t, 'reviewer');
      const partner = await newPartner({ t, sink }, 'submitted');
      assert.equal((await assign(t, reviewer.session, partner.companyId)).status, 200);

      const moved = await assign(t, admin.session, partner.companyId, other.id);
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.data.assigned_to.id, other.id);
      const audited = (await auditEvents(t, { company_id: partner.companyId }))
        .filter((event) => event.action === 'partner.assigned')
        .find((event) => event.metadata?.['operator_id'] === other.id);
      assert.equal(audited?.metadata?.['previous_operator_id'], reviewer.id);
      assert.equal(audited?.actor.id, admin.id);

      assert.ok(await queueItem(t, partner.companyId, `&assigned_to=${other.id}`));
      assert.equal(await queueItem(t, partner.companyId, `&assigned_to=${reviewer.id}`), undefined);
      assert.equal(await queueItem(t, partner.companyId, '&assigned_to=none'), undefined);
      const mine = await listAll(t, `${ADMIN_PARTNERS}?assigned_to=me`, {
        cookie: cookieOf(other.session),
      });
      assert.deepEqual(
        mine.map((item) => item.company_id),
        [partner.companyId],
      );

      const cleared = await unassign(t, admin.session, partner.companyId);
      assert.equal(cleared.status, 200, cleared.text);
      assert.ok(await queueItem(t, partner.companyId, '&assigned_to=none'));
      const unassigned = (await auditEvents(t, { company_id: partner.companyId })).find(
        (event) => event.action === 'partner.unassigned',
      );
      assert.equal(unassigned?.metadata?.['previous_operator_id'], other.id);
    });

    it('refuses to assign an unknown operator or an unknown partner, and the admin API key must name an operator', async () => {
      const { t, sink } = suite;
      const admin = await newOperator(t, 'admin');
      const partner = await newPartner({ t, sink }, 'submitted');
      const unknown = await assign(t, admin.session, partner.companyId, randomUUID());
      assertError(unknown, 422, 'VALIDATION_FAILED');
      assert.match(unknown.text, /operator_id/);
      assertError(await assign(t, admin.session, 2_000_000_000, admin.id), 404, 'NOT_FOUND');

      const byKey = await t.api.put(
        adminPartnerUrl(partner.companyId, 'assignee'),
        {},
        { headers: adminHeaders },
      );
      assertError(byKey, 422, 'VALIDATION_FAILED');
      const named = await t.api.put(
        adminPartnerUrl(partner.companyId, 'assignee'),
        { operator_id: admin.id },
        { headers: adminHeaders },
      );
      assert.equal(named.status, 200, named.text);
      assert.equal(named.body.data.assigned_to.id, admin.id);
      const me = await t.api.get(`${ADMIN_PARTNERS}?assigned_to=me`, { headers: adminHeaders });
      assertError(me, 422, 'VALIDATION_FAILED');
      assertError(
        await t.api.get(`${ADMIN_PARTNERS}?assigned_to=someone`, { headers: adminHeaders }),
        422,
        'VALIDATION_FAILED',
      );
    });
  });
}
