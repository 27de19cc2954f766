import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { csvRecords } from '../support/csv.js';
import { uniqueSuffix } from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { ADMIN_PARTNERS, AUDIT_EVENTS } from '../support/paths.js';
import {
  type AuditItem,
  auditEvents,
  consolePost,
  newOperator,
  SESSION_LOGOUT,
  type TestOperator,
} from './operator-kit.js';

const AUDIT_CSV_COLUMNS = [
  'created_at',
  'company_id',
  'company_name',
  'actor_type',
  'actor_id',
  'actor_name',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'request_id',
  'ip',
];

for (const dialect of DIALECTS) {
  describe(`audit log filters by name and date, with names [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    const tag = uniqueSuffix();
    let acme: PartnerAt<'verified'>;
    let zenith: PartnerAt<'verified'>;
    let operator: TestOperator;

    before(async () => {
      acme = await newPartner(suite, 'verified', { business_name: `Acme ${tag} Ltd` });
      zenith = await newPartner(suite, 'verified', { business_name: `Zenith ${tag} Pay` });
      operator = await newOperator(suite.t, 'reviewer', { email: `ada-${tag}@bank.example` });
      assert.equal((await consolePost(suite.t, operator.session, SESSION_LOGOUT)).status, 200);
    });

    it("filters by text in the company's name or e-mail, and names the company and the partner actor", async () => {
      const events = await auditEvents(suite.t, { company: `ACME ${tag}` });
      assert.ok(events.length >= 2, 'registered and verified');
      for (const event of events) {
        assert.equal(event.company_id, acme.companyId);
        assert.equal(event.company_name, `Acme ${tag} Ltd`);
        if (event.actor.type === 'partner') assert.equal(event.actor.name, `Acme ${tag} Ltd`);
      }
      const byEmail = await auditEvents(suite.t, { company: zenith.email });
      assert.ok(byEmail.length >= 1);
      assert.ok(byEmail.every((event) => event.company_id === zenith.companyId));
      assert.deepEqual(await auditEvents(suite.t, { company: `nobody-${tag}` }), []);
    });

    it("filters by text in the acting operator's name or e-mail, and names the operator", async () => {
      const events = await auditEvents(suite.t, { operator: `ADA-${tag}` });
      assert.ok(events.some((event) => event.action === 'operator.signed_out'));
      for (const event of events) {
        assert.deepEqual(event.actor, {
          type: 'operator',
          id: operator.id,
          name: operator.name,
          email: operator.email,
        });
      }
      assert.deepEqual(await auditEvents(suite.t, { operator: `nobody-${tag}` }), []);
    });

    it('filters by created_from and created_to, both inclusive', async () => {
      const events = await auditEvents(suite.t, { company: tag });
      const oldest = events.at(-1)!;
      const newest = events[0]!;
      const from = await auditEvents(suite.t, { company: tag, created_from: newest.created_at });
      assert.ok(from.every((event) => event.created_at >= newest.created_at));
      assert.ok(from.some((event) => event.id === newest.id));
      const to = await auditEvents(suite.t, { company: tag, created_to: oldest.created_at });
      assert.ok(to.every((event) => event.created_at <= oldest.created_at));
      assert.ok(to.some((event) => event.id === oldest.id));
      assert.deepEqual(await auditEvents(suite.t, { company: tag, created_to: '2000-01-01' }), []);
      assertError(
        await suite.t.api.get(`${AUDIT_EVENTS}?created_from=yesterday`, { headers: adminHeaders }),
        422,
        'VALIDATION_FAILED',
        { fields: ['created_from'] },
      );
    });

    it('searches partners by text in the business name or e-mail (GET /admin/partners?q=)', async () => {
      const byName = await suite.t.api.get(`${ADMIN_PARTNERS}?q=${encodeURIComponent(`zenith ${tag}`)}`, {
        headers: adminHeaders,
      });
      assert.equal(byName.status, 200, byName.text);
      assert.deepEqual(
        byName.body.data.items.map((partner: { company_id: number }) => partner.company_id),
        [zenith.companyId],
      );
      const byEmail = await suite.t.api.get(
        `${ADMIN_PARTNERS}?q=${encodeURIComponent(acme.email.toUpperCase())}`,
        {
          headers: adminHeaders,
        },
      );
      assert.deepEqual(
        byEmail.body.data.items.map((partner: { company_id: number }) => partner.company_id),
        [acme.companyId],
      );
    });

    it('exports every matching event as CSV with Accept: text/csv', async () => {
      const json: AuditItem[] = await auditEvents(suite.t, { company: tag });
      const response = await fetch(`${suite.t.api.baseUrl}${AUDIT_EVENTS}?limit=1&company=${tag}`, {
        headers: { ...adminHeaders, accept: 'text/csv' },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
      const rows = csvRecords(await response.text(), AUDIT_CSV_COLUMNS);
      assert.deepEqual(
        rows.map((row) => [row['created_at'], row['action'], row['company_name'], row['actor_name']]),
        json.map((event) => [
          event.created_at,
          event.action,
          event.company_name ?? '',
          event.actor.name ?? '',
        ]),
      );
    });
  });
}
