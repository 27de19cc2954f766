import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newOperator, operatorUrl } from '../operators/operator-kit.js';
import { adminPost, approvePartner, currentAdminDocument } from '../support/admin.js';
import { type AppContext, DIALECTS, TEST_CONNECTOR_SECRET, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { notification, notify } from '../support/bank.js';
import { type FakeBank, startFakeBank } from '../support/fake-bank.js';
import { beneficiaryNumber, fastTransferEnv } from '../support/live-transfers.js';
import { type ParsedMail, parseMail } from '../support/mime.js';
import { createAccount, newPartner, type PartnerAt, signIn } from '../support/partners.js';
import { adminDocumentUrl, adminPartnerUrl, creditUrl, TRANSFERS, transferUrl } from '../support/paths.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import { FAST_WEBHOOKS, setEndpoint, startReceiver } from '../support/webhooks.js';

/*
 * The e-mails partners and operators get (docs/partner-guide.md and docs/operator-guide.md, "E-mail
 * notifications"), read from a real SMTP server: one per change, to the right people, with a
 * plain-text and an HTML part, the reason the operator gave and never the internal note.
 */

const PUBLIC_URL = 'https://baas.bank.example';
const DASHBOARD = `${PUBLIC_URL}/dashboard`;
const HOUR = 60 * 60 * 1000;
const BANK_CODE = '000013';

/** A reason with markup in it: the HTML part must show it as text. */
const reasonOf = (what: string) =>
  `Please <b>re-upload</b> the ${what} & sign it "in full" (${randomBytes(3).toString('hex')}).`;
const escaped = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** A note no e-mail may carry (AML tipping-off). */
const noteOf = (what: string) => `STR ${what} ${randomBytes(6).toString('hex')}: do not disclose.`;

// biome-ignore lint/suspicious/noExplicitAny: API objects.
type Json = any;

for (const dialect of DIALECTS) {
  describe(`e-mail notifications [${dialect.name}]`, { skip: dialect.skip }, () => {
    let bank: FakeBank;
    before(async () => {
      bank = await startFakeBank({ secret: TEST_CONNECTOR_SECRET });
    });
    const suite: AppContext = useApp(dialect.name, () => ({
      env: {
        ...fastTransferEnv(bank.url),
        ...FAST_WEBHOOKS,
        // A failed delivery waits a minute for its retry: the test moves the clock to make it due.
        WEBHOOK_RETRY_BASE_MS: '60000',
        MAIL_POLL_MS: '50',
        PUBLIC_URL,
      },
    }));
    after(() => bank?.close());

    /** The notifications (not the codes) e-mailed to `address`, parsed, once every one queued was sent. */
    async function noticesTo(address: string): Promise<ParsedMail[]> {
      const queued = await until(`the e-mails to ${address} to be sent`, async () => {
        const rows = await suite.t.db
          .selectFrom('mail_outbox')
          .select(['subject', 'status'])
          .where('recipient', '=', address)
          .execute();
        return rows.every((row) => row.status === 'sent') && rows;
      });
      await suite.sink.waitForMail(address, queued.length);
      const received = suite.sink.mailsTo(address).map((mail) => parseMail(mail.raw));
      return received.filter((mail) => !/code$/.test(mail.subject));
    }

    /** The one notification to `address` past the `before` already seen; fails if there are more or none. */
    async function theNewNotice(address: string, before: number): Promise<ParsedMail> {
      const notices = await until(`a notification to ${address}`, async () => {
        const all = await noticesTo(address);
        return all.length > before && all;
      });
      assert.equal(
        notices.length,
        before + 1,
        `one new notification: ${notices.map((n) => n.subject).join(' | ')}`,
      );
      return notices.at(-1)!;
    }

    /** A multipart/alternative e-mail whose both parts hold `needles` (escaped in HTML) and no `forbidden`. */
    function assertParts(mail: ParsedMail, needles: string[], forbidden: string[] = []) {
      assert.deepEqual(mail.contentTypes, ['text/plain', 'text/html']);
      assert.ok(mail.text && mail.html, 'a text and an HTML part');
      for (const needle of needles) {
        assert.ok(mail.text.includes(needle), `text has ${needle}:\n${mail.text}`);
        assert.ok(mail.html.includes(escaped(needle)), `HTML has ${escaped(needle)}:\n${mail.html}`);
      }
      for (const secret of forbidden) {
        assert.ok(!mail.text.includes(secret) && !mail.html.includes(secret), `no ${secret}`);
        assert.ok(!mail.subject.includes(secret));
      }
      assert.doesNotMatch(mail.html, /<b>re-upload<\/b>/, 'markup from a reason is shown, not rendered');
      assert.doesNotMatch(mail.html, /<img|<link|<script|\bsrc=|url\(/i, 'no image, no remote content');
      for (const [, href] of mail.html.matchAll(/href="([^"]*)"/g)) {
        assert.ok(href!.startsWith(`${PUBLIC_URL}/`), `links go to this service only: ${href}`);
      }
    }

    it('request for changes: one e-mail to the partner with the reason, never the internal note', async () => {
      const partner = await newPartner(suite, 'submitted');
      const reason = reasonOf('CAC certificate');
      const note = noteOf('changes');
      const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'request-changes'), {
        reason,
        internal_note: note,
      });
      assert.equal(response.status, 200, response.text);
      const mail = await theNewNotice(partner.email, 0);
      assert.equal(mail.subject, 'Acme Payments Ltd: changes requested on your application');
      assertParts(mail, [reason, `${DASHBOARD}/onboarding`], [note, 'STR ']);
    });

    it('approval: one e-mail; an approval refused (409) sends nothing', async () => {
      const partner = await newPartner(suite, 'submitted');
      const early = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'approve'));
      assertError(early, 409, 'ONBOARDING_INCOMPLETE');
      await approvePartner(suite.t, partner.companyId);
      const mail = await theNewNotice(partner.email, 0);
      assert.equal(mail.subject, 'Acme Payments Ltd: your application is approved');
      assertParts(mail, ['you can now switch to live', `${DASHBOARD}/overview`]);

      const again = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'approve'));
      assertError(again, 409, 'ONBOARDING_LOCKED');
      assert.equal((await noticesTo(partner.email)).length, 1, 'the refused approvals sent nothing');
    });

    it('rejection: one e-mail with the reason, never the internal note', async () => {
      const partner = await newPartner(suite, 'submitted', { business_name: 'Ọkọ & Sons <Ltd>' });
      const reason = reasonOf('application');
      const note = noteOf('reject');
      const response = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'reject'), {
        reason,
        internal_note: note,
      });
      assert.equal(response.status, 200, response.text);
      const mail = await theNewNotice(partner.email, 0);
      assert.equal(mail.subject, 'Ọkọ & Sons <Ltd>: your application was not approved');
      assertParts(mail, [reason, 'Ọkọ & Sons <Ltd>'], [note]);
    });

    it('a rejected document: one e-mail naming it, with the reason; an approved one sends nothing', async () => {
      const partner = await newPartner(suite, 'submitted');
      const memart = await currentAdminDocument(suite.t, partner.companyId, 'memart');
      const approved = await adminPost(suite.t, adminDocumentUrl(partner.companyId, memart.id, 'approve'));
      assert.equal(approved.status, 200, approved.text);
      const cac = await currentAdminDocument(suite.t, partner.companyId, 'cac_certificate');
      const reason = reasonOf('certificate');
      const rejected = await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac.id, 'reject'), {
        reason,
      });
      assert.equal(rejected.status, 200, rejected.text);
      const mail = await theNewNotice(partner.email, 0);
      assert.equal(mail.subject, 'Acme Payments Ltd: a document needs replacing (CAC certificate)');
      assertParts(mail, [reason, 'CAC certificate', `${DASHBOARD}/onboarding`]);

      const twice = await adminPost(suite.t, adminDocumentUrl(partner.companyId, cac.id, 'reject'), {
        reason,
      });
      assertError(twice, 409, 'ONBOARDING_LOCKED');
      assert.equal((await noticesTo(partner.email)).length, 1, 'the refused decision sent nothing');
    });

    it('suspension and reinstatement: one e-mail each, the reason without the internal note', async () => {
      const partner = await newPartner(suite, 'active');
      const seen = (await noticesTo(partner.email)).length;
      const reason = reasonOf('KYC');
      const note = noteOf('suspend');
      const suspended = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), {
        reason,
        internal_note: note,
      });
      assert.equal(suspended.status, 200, suspended.text);
      const suspension = await theNewNotice(partner.email, seen);
      assert.equal(suspension.subject, 'Acme Payments Ltd: your live access is suspended');
      assertParts(suspension, [reason, 'The sandbox keeps working'], [note, 'STR ']);

      const reinstated = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'reinstate'));
      assert.equal(reinstated.status, 200, reinstated.text);
      const reinstatement = await theNewNotice(partner.email, seen + 1);
      assert.equal(reinstatement.subject, 'Acme Payments Ltd: your live access is restored');
      assertParts(reinstatement, ['live API keys and live sessions work again'], [note, reason]);

      const twice = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'reinstate'));
      assertError(twice, 409, 'ONBOARDING_LOCKED');
      assert.equal((await noticesTo(partner.email)).length, seen + 2);
    });

    it('two suspensions at once: one is applied and e-mailed, the other refused (409) sends nothing', async () => {
      const partner = await newPartner(suite, 'active');
      const seen = (await noticesTo(partner.email)).length;
      const answers = await Promise.all(
        [1, 2].map((n) =>
          adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), { reason: `Reason ${n}` }),
        ),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
      const winner = answers.find((answer) => answer.status === 200)!;
      const mail = await theNewNotice(partner.email, seen);
      assert.ok(mail.text?.includes(winner.body.data.review_notes), 'the applied suspension’s reason');
    });

    it('submission: every active operator, reviewer or admin, gets one e-mail; a deactivated one none', async () => {
      const admin = await newOperator(suite.t, 'admin');
      const reviewer = await newOperator(suite.t, 'reviewer');
      const gone = await newOperator(suite.t, 'reviewer');
      const deactivated = await adminPost(suite.t, operatorUrl(gone.id, 'deactivate'));
      assert.equal(deactivated.status, 200, deactivated.text);

      const partner = await newPartner(suite, 'submitted', { business_name: 'Kobo Rails Ltd' });
      const aboutIt = async (address: string) =>
        (await noticesTo(address)).filter((mail) =>
          mail.text?.includes(`Company id: ${partner.companyId}\n`),
        );
      for (const operator of [admin, reviewer]) {
        const [mail, ...more] = await until(`the submission e-mail to ${operator.role}`, async () => {
          const mails = await aboutIt(operator.email);
          return mails.length > 0 && mails;
        });
        assert.equal(more.length, 0, 'one e-mail');
        assert.equal(mail!.subject, 'Application submitted for review: Kobo Rails Ltd');
        assertParts(mail!, ['Kobo Rails Ltd', `${PUBLIC_URL}/console/partners/${partner.companyId}`]);
      }
      assert.deepEqual(await aboutIt(gone.email), []);
      assert.equal(
        (await noticesTo(partner.email)).length,
        0,
        'the partner is not e-mailed its own submission',
      );
    });

    describe('a webhook endpoint failing for an hour', () => {
      let partner: PartnerAt<'signed-in'>;

      /** The partner's event's failed automatic attempts so far, once at least `count` are recorded. */
      async function failedAttempts(eventId: string, count: number) {
        return until(`${count} attempts of ${eventId}`, async () => {
          const attempts = await attemptsOf(suite.t, eventId);
          return attempts.length >= count && attempts;
        });
      }

      /** Moves the clock to the event's next attempt and waits for it. */
      async function nextAttempt(eventId: string, advanceMs = 0): Promise<void> {
        const before = (await attemptsOf(suite.t, eventId)).length;
        const [row] = (await outboxEvents(suite.t, partner.companyId)).filter(
          (event) => event.id === eventId,
        );
        suite.t.clock.advance(Math.max(advanceMs, Number(row!.next_attempt_at) - suite.t.clock.now() + 1));
        await failedAttempts(eventId, before + 1);
      }

      it('e-mails once an hour of failures has passed, once per failing episode, and again after a success ends it', async (test) => {
        const receiver = await startReceiver(test);
        partner = await newPartner(suite, 'signed-in');
        await setEndpoint(suite.t.api, partner.token, receiver);
        receiver.respond = () => 503;
        await createAccount(suite.t, partner.token);
        const [event] = await outboxEvents(suite.t, partner.companyId);
        await failedAttempts(event!.id, 1);

        // Half an hour of failures: nothing yet.
        await nextAttempt(event!.id, HOUR / 2);
        assert.equal((await noticesTo(partner.email)).length, 0, 'not before an hour');

        // Past the hour: the next failure e-mails, and the ones after it do not.
        await nextAttempt(event!.id, HOUR / 2);
        const mail = await theNewNotice(partner.email, 0);
        assert.equal(
          mail.subject,
          'Acme Payments Ltd: your sandbox webhook endpoint has been failing for an hour',
        );
        assertParts(mail, [receiver.url, 'http_503', 'sandbox', `${DASHBOARD}/developers/webhooks`]);
        await nextAttempt(event!.id);
        await nextAttempt(event!.id, HOUR);
        assert.equal((await noticesTo(partner.email)).length, 1, 'one e-mail per episode');

        // A success ends the episode; the next hour of failures is a new one.
        receiver.respond = () => 200;
        const [before] = await outboxEvents(suite.t, partner.companyId);
        suite.t.clock.advance(Number(before!.next_attempt_at) - suite.t.clock.now() + 1);
        await until('the event to be delivered', async () => {
          const [row] = await outboxEvents(suite.t, partner.companyId);
          return row?.status === 'delivered';
        });
        receiver.respond = () => 500;
        // The clock moved past the session's life: sign in again.
        await createAccount(suite.t, await signIn(suite.t, partner));
        const second = (await outboxEvents(suite.t, partner.companyId)).find((row) => row.id !== event!.id)!;
        await failedAttempts(second.id, 1);
        assert.equal((await noticesTo(partner.email)).length, 1, 'a new episode starts without an e-mail');
        await nextAttempt(second.id, HOUR + 1000);
        const again = await theNewNotice(partner.email, 1);
        assertParts(again, ['http_500']);
      });
    });

    it('a failed live transfer: one e-mail with reference, amount and reason; a failed sandbox transfer none', async () => {
      const partner = await newPartner(suite, 'live');
      const seen = (await noticesTo(partner.email)).length;

      const sandboxAccount = await createAccount(suite.t, partner.sandboxKey);
      const credited = await suite.t.api.post(
        creditUrl(sandboxAccount.account_number),
        { amount: '5000.00', narration: 'funding' },
        { token: partner.sandboxKey },
      );
      assert.equal(credited.status, 201, credited.text);
      const sandboxTransfer = await sendTransfer(partner.sandboxKey, sandboxAccount, '0123456705');
      await settledAs(partner.sandboxKey, sandboxTransfer.id, 'failed');

      const liveAccount = await createAccount(suite.t, partner.liveKey);
      const funded = await notify(
        suite.t.api,
        notification(liveAccount.account_number, { amount_kobo: 10_000_000 }),
        {
          nowMs: suite.t.clock.now(),
        },
      );
      assert.equal(funded.status, 200, funded.text);
      const beneficiary = beneficiaryNumber();
      bank.script(beneficiary, { transfer: { responseCode: '05' } });
      const liveTransfer = await sendTransfer(partner.liveKey, liveAccount, beneficiary, 1234.5);
      const failed = await settledAs(partner.liveKey, liveTransfer.id, 'failed');

      const mail = await theNewNotice(partner.email, seen);
      assert.equal(mail.subject, `Acme Payments Ltd: a live transfer failed (${liveTransfer.reference})`);
      assertParts(mail, [
        liveTransfer.reference,
        'NGN 1,234.50',
        failed.failure_reason,
        beneficiary,
        `${DASHBOARD}/transfers/${liveTransfer.id}`,
      ]);
    });

    let serial = 0;
    async function sendTransfer(
      key: string,
      account: Json,
      accountNumber: string,
      amount = 1000,
    ): Promise<Json> {
      const response = await suite.t.api.post(
        TRANSFERS,
        {
          source_account_number: account.account_number,
          amount,
          bank_code: BANK_CODE,
          account_number: accountNumber,
          reference: `notify-${Date.now()}-${++serial}`,
        },
        { token: key },
      );
      assert.equal(response.status, 202, response.text);
      return response.body.data;
    }

    async function settledAs(key: string, id: string, status: string): Promise<Json> {
      return until(`transfer ${id} to be ${status}`, async () => {
        const response = await suite.t.api.get(transferUrl(id), { token: key });
        assert.equal(response.status, 200, response.text);
        return response.body.data.status === status && response.body.data;
      });
    }
  });
}
