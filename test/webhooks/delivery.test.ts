import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminHeaders, approvePartner } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { ISO_MILLIS } from '../support/assertions.js';
import { completeOnboarding } from '../support/onboarding.js';
import { createAccount, newPartner } from '../support/partners.js';
import { adminDocumentUrl, adminPartnerUrl, CREATE_ACCOUNT, creditUrl, SUBMIT } from '../support/paths.js';
import { attemptsOf, outboxEvents } from '../support/records.js';
import type { ReceivedWebhook } from '../support/webhook-receiver.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import {
  FAST_WEBHOOKS,
  setEndpoint,
  settled,
  startReceiver,
  subscribedPartner,
  verifiedPayload,
} from '../support/webhooks.js';

const ofType = (deliveries: ReceivedWebhook[], type: string) =>
  deliveries.filter((delivery) => verifiedPayload(delivery).type === type);

// The dialects' suites are independent (a database each), so they run side by side.
describe('webhook delivery', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`webhook delivery [${dialect.name}]`, { skip: dialect.skip, concurrency: true }, () => {
      const ctx = useApp(dialect.name, { env: FAST_WEBHOOKS });

      it('sends virtual_account.created with Standard Webhooks headers and the created account as data', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        const before = Date.now();
        const account = await createAccount(t, partner.token);
        const after = Date.now();
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        const delivery = receiver.received[0]!;

        const [event] = await outboxEvents(t, partner.companyId);
        assert.ok(event);
        assert.equal(delivery.id, event.id, 'webhook-id is the event id');
        assert.match(delivery.id, /^msg_[A-Za-z0-9_-]{16,}$/);
        const sentAt = Number(delivery.timestamp);
        assert.ok(Number.isInteger(sentAt), `webhook-timestamp is unix seconds: ${delivery.timestamp}`);
        assert.ok(Math.abs(sentAt - Date.now() / 1000) < 10, 'webhook-timestamp is the send time');
        assert.match(delivery.signature, /^v1,[A-Za-z0-9+/]{43}=$/);

        const payload = verifiedPayload(delivery);
        assert.deepEqual(Object.keys(payload).sort(), ['data', 'timestamp', 'type']);
        assert.equal(payload.type, 'virtual_account.created');
        assert.match(payload.timestamp, ISO_MILLIS);
        const occurred = Date.parse(payload.timestamp);
        assert.ok(
          occurred >= before - 5 && occurred <= after + 5,
          'timestamp is when the account was created',
        );
        assert.deepEqual(payload.data, account, 'data is the account the API returned');
        assert.deepEqual(JSON.parse(delivery.body), payload, 'the raw body is the verified JSON');

        const settledEvents = await settled(t, partner.companyId);
        assert.equal(settledEvents[0]!.status, 'delivered');
        assert.ok(settledEvents[0]!.delivered_at);
        const attempts = await attemptsOf(t, event.id);
        assert.equal(attempts.length, 1);
        assert.equal(attempts[0]!.status_code, 200);
        assert.equal(attempts[0]!.succeeded, 1);
      });

      it('sends virtual_account.credited after a simulated credit, with the transaction and the new balance', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        const account = await createAccount(t, partner.token);
        const credit = await t.api.post(
          creditUrl(account.account_number),
          { amount: 1500.5, narration: 'Test transfer' },
          { token: partner.token },
        );
        assert.equal(credit.status, 201, credit.text);
        await receiver.waitFor(
          (deliveries) => ofType(deliveries, 'virtual_account.credited').length >= 1,
          10_000,
        );
        const payload = verifiedPayload(ofType(receiver.received, 'virtual_account.credited')[0]!);
        assert.deepEqual(payload.data, credit.body.data);
        assert.equal(payload.data.account.account_number, account.account_number);
        assert.equal(payload.data.account.balance, 1500.5);
        assert.equal(payload.data.transaction.amount_kobo, 150050);
        assert.equal(payload.timestamp, credit.body.data.transaction.created_at);
      });

      it('sends onboarding.status_changed and document.reviewed through submit, document rejection and requested changes', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        await completeOnboarding(t, partner.token);
        const submitted = await t.api.post(SUBMIT, undefined, { token: partner.token });
        assert.equal(submitted.status, 200, submitted.text);
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        const underReview = verifiedPayload(receiver.received[0]!);
        assert.equal(underReview.type, 'onboarding.status_changed');
        assert.deepEqual(underReview.data, {
          company_id: partner.companyId,
          onboarding_status: 'under_review',
          review_notes: null,
        });

        const record = await t.api.get(adminPartnerUrl(partner.companyId), {
          headers: adminHeaders,
        });
        const memart = (
          record.body.data.documents as Array<{ id: string; document_type: string; current: boolean }>
        ).find((document) => document.document_type === 'memart' && document.current)!;
        const rejected = await t.api.post(
          adminDocumentUrl(partner.companyId, memart.id, 'reject'),
          { reason: 'The MEMART is not certified.' },
          { headers: adminHeaders },
        );
        assert.equal(rejected.status, 200, rejected.text);
        const changes = await t.api.post(
          adminPartnerUrl(partner.companyId, 'request-changes'),
          { reason: 'Upload a certified MEMART.' },
          { headers: adminHeaders },
        );
        assert.equal(changes.status, 200, changes.text);

        await receiver.waitFor((deliveries) => deliveries.length >= 3, 10_000);
        const [, reviewed, inProgress] = receiver.received.map(verifiedPayload);
        assert.equal(reviewed!.type, 'document.reviewed');
        assert.deepEqual(reviewed!.data, {
          id: memart.id,
          document_type: 'memart',
          status: 'rejected',
          rejection_reason: 'The MEMART is not certified.',
        });
        const { reviewed_at: _reviewedAt, ...decision } = rejected.body.data;
        assert.deepEqual(reviewed!.data, decision, 'data is the document decision the admin API returned');
        assert.equal(inProgress!.type, 'onboarding.status_changed');
        assert.deepEqual(inProgress!.data, {
          company_id: partner.companyId,
          onboarding_status: 'in_progress',
          review_notes: 'Upload a certified MEMART.',
        });

        // Onboarding events are queued for both environments; live has no endpoint, so its copies are skipped.
        const events = await settled(t, partner.companyId);
        assert.equal(events.length, 6);
        for (const environment of ['sandbox', 'live']) {
          const copies = events.filter((event) => event.environment === environment);
          assert.deepEqual(
            copies.map((event) => event.type),
            ['onboarding.status_changed', 'document.reviewed', 'onboarding.status_changed'],
          );
          const expected = environment === 'sandbox' ? 'delivered' : 'skipped';
          assert.ok(
            copies.every((event) => event.status === expected),
            `${environment}: ${expected}`,
          );
        }
        const liveIds = new Set(
          events.filter((event) => event.environment === 'live').map((event) => event.id),
        );
        assert.ok(receiver.received.every((delivery) => !liveIds.has(delivery.id)));
      });

      it('sends document.reviewed for each approval and onboarding.status_changed to active when the operator approves', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'signed-in');
        await completeOnboarding(t, partner.token);
        await t.api.post(SUBMIT, undefined, { token: partner.token });
        await settled(t, partner.companyId);
        await setEndpoint(t.api, partner.token, receiver);
        await approvePartner(t, partner.companyId);
        await receiver.waitFor((deliveries) => deliveries.length >= 4, 10_000);
        const payloads = receiver.received.map(verifiedPayload);
        assert.deepEqual(
          payloads.map((payload) => payload.type),
          ['document.reviewed', 'document.reviewed', 'document.reviewed', 'onboarding.status_changed'],
        );
        assert.deepEqual(
          payloads
            .slice(0, 3)
            .map((payload) => payload.data.document_type)
            .sort(),
          ['cac_certificate', 'memart', 'valid_id'],
        );
        for (const payload of payloads.slice(0, 3)) {
          assert.equal(payload.data.status, 'approved');
          assert.equal(payload.data.rejection_reason, null);
        }
        assert.deepEqual(payloads[3]!.data, {
          company_id: partner.companyId,
          onboarding_status: 'active',
          review_notes: null,
        });
      });

      it("delivers a partner's events in creation order when the receiver keeps up", async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        const created: string[] = [];
        for (let i = 0; i < 5; i++) created.push((await createAccount(t, partner.token)).account_number);
        await receiver.waitFor((deliveries) => deliveries.length >= 5, 10_000);
        assert.deepEqual(
          receiver.received.map((delivery) => verifiedPayload(delivery).data.account_number),
          created,
        );
        assert.equal(new Set(receiver.received.map((delivery) => delivery.id)).size, 5);
      });

      it('queues no event for a change that did not happen', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        const account = await createAccount(t, partner.token);
        await settled(t, partner.companyId);
        const duplicate = await t.api.post(
          CREATE_ACCOUNT,
          {
            first_name: 'Chidi',
            last_name: 'Okafor',
            email: account.customer.email,
            phone: '+2348090000000',
          },
          { token: partner.token },
        );
        assert.equal(duplicate.status, 409, duplicate.text);
        const tooMuch = await t.api.post(
          creditUrl(account.account_number),
          { amount: 10_000_000.01 },
          { token: partner.token },
        );
        assert.equal(tooMuch.status, 422, tooMuch.text);
        const events = await outboxEvents(t, partner.companyId);
        assert.deepEqual(
          events.map((event) => event.type),
          ['virtual_account.created'],
        );
        assert.equal(receiver.received.length, 1);
      });

      it("does not send one partner's events to another partner's endpoint", async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const first = await newPartner({ t, sink }, 'signed-in');
        const second = await newPartner({ t, sink }, 'signed-in');
        const other = await new WebhookReceiver().start();
        try {
          await setEndpoint(t.api, first.token, receiver);
          await setEndpoint(t.api, second.token, other);
          const mine = await createAccount(t, first.token);
          const theirs = await createAccount(t, second.token);
          await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
          await other.waitFor((deliveries) => deliveries.length >= 1, 10_000);
          await settled(t, first.companyId);
          await settled(t, second.companyId);
          assert.deepEqual(
            receiver.received.map((delivery) => verifiedPayload(delivery).data.account_number),
            [mine.account_number],
          );
          assert.deepEqual(
            other.received.map((delivery) => verifiedPayload(delivery).data.account_number),
            [theirs.account_number],
          );
        } finally {
          await other.stop();
        }
      });
    });
  }
});
