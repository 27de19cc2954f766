import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminPost, partnerRecord } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { type ParsedMail, parseMail } from '../support/mime.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl, USERS_ME } from '../support/paths.js';
import { addUser } from '../support/users.js';

/*
 * Each dashboard user turns off the e-mails they do not want (docs/partner-guide.md, "E-mail
 * notifications"): the owner and admins receive every kind until they do; suspension and
 * reinstatement cannot be turned off; the choice is audited and is the user's own.
 */

const PREFERENCES = `${USERS_ME}/notifications`;
const REJECTED = /a document needs replacing/;

for (const dialect of DIALECTS) {
  describe(`notification preferences [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { MAIL_POLL_MS: '50' } });

    /** The document-rejected e-mails sent to `address`, once every e-mail queued for it was sent. */
    async function rejectionsTo(address: string): Promise<ParsedMail[]> {
      const queued = await until(`the e-mails to ${address} to be sent`, async () => {
        const rows = await suite.t.db
          .selectFrom('mail_outbox')
          .select('status')
          .where('recipient', '=', address)
          .execute();
        return rows.every((row) => row.status === 'sent') && rows;
      });
      await suite.sink.waitForMail(address, queued.length);
      return suite.sink
        .mailsTo(address)
        .map((mail) => parseMail(mail.raw))
        .filter((mail) => REJECTED.test(mail.subject));
    }

    /** Rejects the partner's current document of `type` as the operator. */
    async function rejectDocument(companyId: number, type: string) {
      const document = (await partnerRecord(suite.t, companyId)).documents.find(
        (item: { current: boolean; document_type: string }) => item.current && item.document_type === type,
      );
      const rejected = await adminPost(suite.t, adminDocumentUrl(companyId, document.id, 'reject'), {
        reason: 'The scan is unreadable.',
      });
      assert.equal(rejected.status, 200, rejected.text);
    }

    it('lists every kind on; a user turns one off for themselves only, and back on', async () => {
      const { t, sink } = suite;
      const partner = await newPartner(suite, 'submitted');
      const admin = await addUser({ t, sink }, partner.token, 'admin');

      const listed = await t.api.get(PREFERENCES, { token: admin.token });
      assert.equal(listed.status, 200, listed.text);
      const kinds = listed.body.data as Array<{ kind: string; enabled: boolean; required: boolean }>;
      assert.deepEqual(
        kinds.map((item) => [item.kind, item.enabled, item.required]),
        [
          ['changes_requested', true, false],
          ['application_approved', true, false],
          ['application_rejected', true, false],
          ['document_rejected', true, false],
          ['partner_suspended', true, true],
          ['partner_reinstated', true, true],
          ['webhook_endpoint_failing', true, false],
          ['transfer_failed', true, false],
        ],
      );

      const off = await t.api.put(
        PREFERENCES,
        { kind: 'document_rejected', enabled: false },
        { token: admin.token },
      );
      assert.equal(off.status, 200, off.text);
      const offKind = off.body.data.find((item: { kind: string }) => item.kind === 'document_rejected');
      assert.equal(offKind.enabled, false);
      const owners = await t.api.get(PREFERENCES, { token: partner.token });
      assert.ok(
        owners.body.data.every((item: { enabled: boolean }) => item.enabled),
        "the owner's choices are their own",
      );

      await rejectDocument(partner.companyId, 'cac_certificate');
      await until('the owner to be told', async () => (await rejectionsTo(partner.email)).length === 1);
      assert.equal((await rejectionsTo(admin.email)).length, 0, 'the admin turned it off');

      const on = await t.api.put(
        PREFERENCES,
        { kind: 'document_rejected', enabled: true },
        { token: admin.token },
      );
      assert.equal(on.status, 200, on.text);
      await rejectDocument(partner.companyId, 'memart');
      await until('both to be told', async () => (await rejectionsTo(partner.email)).length === 2);
      assert.equal((await rejectionsTo(admin.email)).length, 1, 'on again: the admin is told');

      const events = await t.db
        .selectFrom('audit_events')
        .select(['actor_type', 'actor_id', 'metadata'])
        .where('action', '=', 'user.notifications_changed')
        .where('target_id', '=', admin.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        events.map((event) => [event.actor_type, event.actor_id, JSON.parse(event.metadata ?? '{}')]),
        [
          ['user', admin.id, { kind: 'document_rejected', enabled: false }],
          ['user', admin.id, { kind: 'document_rejected', enabled: true }],
        ],
      );
    });

    it('refuses to turn off suspension e-mails (422, nothing changes), empty or unknown bodies, and API keys', async () => {
      const { t } = suite;
      const partner = await newPartner(suite, 'sandbox');
      const refused = await t.api.put(
        PREFERENCES,
        { kind: 'partner_suspended', enabled: false },
        { token: partner.token },
      );
      assertError(refused, 422, 'VALIDATION_FAILED');
      assert.deepEqual(Object.keys(refused.body.errors ?? {}), ['kind']);
      assert.match(refused.body.errors?.['kind']?.[0] ?? '', /cannot be turned off/);
      const after = await t.api.get(PREFERENCES, { token: partner.token });
      assert.ok(
        after.body.data.every((item: { enabled: boolean }) => item.enabled),
        'a refused change changes nothing',
      );
      const empty = await t.api.put(PREFERENCES, {}, { token: partner.token });
      assertError(empty, 422, 'VALIDATION_FAILED');
      assert.deepEqual(Object.keys(empty.body.errors ?? {}).sort(), ['enabled', 'kind']);
      const unknown = await t.api.put(
        PREFERENCES,
        { kind: 'newsletter', enabled: false },
        { token: partner.token },
      );
      assertError(unknown, 422, 'VALIDATION_FAILED');
      assert.deepEqual(Object.keys(unknown.body.errors ?? {}), ['kind']);
      assertError(await t.api.get(PREFERENCES, { token: partner.sandboxKey }), 403, 'FORBIDDEN');
    });
  });
}
