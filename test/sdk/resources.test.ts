import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  ApiError,
  BaasClient,
  ConnectionError,
  type RepresentativeInput,
  type VirtualAccount,
} from '../../sdk/src/index.js';
import { DIALECTS, useApp } from '../support/app.js';
import { ISO_INSTANT, UUID, until } from '../support/assertions.js';
import {
  customerBody,
  memberBody,
  PDF_BYTES,
  PNG_BYTES,
  registration,
  representativeFields,
  STRONG_PASSWORD,
  uniqueEmail,
} from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { freePort } from '../support/smtp-sink.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { apiError, sdkClient, utcDay } from './helpers.js';

type CustomerInput = Parameters<BaasClient['virtualAccounts']['create']>[0];
const customer = (overrides: Record<string, unknown> = {}) => customerBody(overrides) as CustomerInput;
const representative = (overrides: Record<string, string> = {}) =>
  representativeFields(overrides) as unknown as RepresentativeInput;

for (const dialect of DIALECTS) {
  describe(`SDK resources against the real server [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, { env: { WEBHOOK_POLL_MS: '20' } });
    let partner: PartnerAt<'sandbox'>;
    before(async () => {
      partner = await newPartner(suite, 'sandbox');
    });

    it('onboarding: register, verify the e-mailed code, log in, profile, representative with a file, documents (file and URL), submit, environment, API keys, logout', async () => {
      const { t, sink } = suite;
      const { client } = sdkClient(t.url);
      const email = uniqueEmail('sdk');

      const registered = await client.onboarding.register(registration({ email }));
      assert.equal(registered.email, email);
      assert.equal(typeof registered.company_id, 'number');
      const verified = await client.onboarding.verifyOtp({ email, otp: await sink.otpFor(email) });
      assert.equal(verified.verified, true);
      await client.onboarding.resendOtp(email);

      const session = await client.onboarding.login({ email, password: STRONG_PASSWORD });
      assert.equal(session.token_type, 'Bearer');
      assert.equal(session.environment, 'sandbox');
      assert.equal(client.token, session.token, 'login makes the client send the session token');

      const profile = await client.onboarding.profile();
      assert.equal(profile.email, email);
      assert.equal(profile.onboarding_status, 'in_progress');
      const updated = await client.onboarding.updateProfile({
        business_type: 'limited_liability',
        rc_number: 'RC1234567',
      });
      assert.equal(updated.business_type, 'limited_liability');
      assert.deepEqual(updated.document_checklist, {
        cac_certificate: 'missing',
        memart: 'missing',
        valid_id: 'missing',
      });

      const saved = await client.onboarding.saveRepresentative(
        representative(),
        new File([PNG_BYTES], 'id.png', { type: 'image/png' }),
      );
      assert.equal(saved.kyc.ok, true);
      assert.equal(saved.representative.first_name, 'Ada');
      const cac = await client.onboarding.uploadDocument(
        'cac_certificate',
        new Blob([PDF_BYTES], { type: 'application/pdf' }),
      );
      assert.equal(cac.document_type, 'cac_certificate');
      assert.equal(cac.status, 'pending_review');
      assert.match(cac.id, UUID);
      await client.onboarding.uploadDocument('memart', 'https://files.acme.ng/memart.pdf');

      const submitted = await client.onboarding.submit();
      assert.equal(submitted.onboarding_status, 'under_review');
      const locked = await apiError(client.onboarding.submit(), 409, 'ONBOARDING_LOCKED');
      assert.equal(locked.status, 409);
      await apiError(client.onboarding.switchEnvironment('live'), 403, 'ONBOARDING_NOT_APPROVED');
      assert.deepEqual(await client.onboarding.switchEnvironment('sandbox'), { environment: 'sandbox' });

      const key = await client.apiKeys.create({ name: 'sdk test', environment: 'sandbox' });
      assert.ok(key.key, 'the secret is shown on creation');
      assert.match(key.key, /^sk_sandbox_/);
      const secret = key.key;
      const listed = await client.apiKeys.list({ limit: 1 }).toArray();
      assert.deepEqual(
        listed.map((item) => [item.id, item.last4, item.status]),
        [[key.id, secret.slice(-4), 'active']],
      );
      assert.ok(!JSON.stringify(listed).includes(secret), 'a listed key carries no secret');

      const withKey = new BaasClient({ baseUrl: t.url, token: secret });
      const account = await withKey.virtualAccounts.create(customer());
      assert.equal(account.environment, 'sandbox');
      await apiError(withKey.onboarding.profile(), 403, 'FORBIDDEN');

      const revoked = await client.apiKeys.revoke(key.id);
      assert.equal(revoked.status, 'revoked');
      await apiError(withKey.virtualAccounts.get(account.account_number), 401, 'UNAUTHENTICATED');

      const token = client.token;
      await client.onboarding.logout();
      assert.equal(client.token, undefined);
      await apiError(new BaasClient({ baseUrl: t.url, token }).onboarding.profile(), 401, 'UNAUTHENTICATED');
    });

    it('password reset: forgotPassword e-mails a code, resetPassword sets the new password', async () => {
      const { t, sink } = suite;
      const account = await newPartner(suite, 'verified');
      const { client } = sdkClient(t.url);
      await client.onboarding.forgotPassword(account.email);
      const otp = await sink.otpFor(account.email, 2, 'password reset');
      const password = 'Naira-Ledger-Moonrise-77';
      await client.onboarding.resetPassword({
        email: account.email,
        otp,
        password,
        password_confirmation: password,
      });
      await apiError(
        client.onboarding.login({ email: account.email, password: STRONG_PASSWORD }),
        401,
        'INVALID_CREDENTIALS',
      );
      const session = await client.onboarding.login({ email: account.email, password });
      assert.equal(session.environment, 'sandbox');
    });

    it('virtual accounts: create, get, list across pages with filters, credit, transactions, deactivate/reactivate/close, statement as JSON and CSV', async () => {
      const { t } = suite;
      const fresh = await newPartner(suite, 'sandbox');
      const { client, requests } = sdkClient(t.url, fresh.sandboxKey);

      const created: VirtualAccount[] = [];
      for (let i = 0; i < 5; i++) created.push(await client.virtualAccounts.create(customer()));
      const [first] = created;
      assert.ok(first);
      assert.match(first.account_number, /^[0-9]{10}$/);
      assert.equal(first.status, 'active');
      assert.equal(first.balance, 0);
      assert.deepEqual(await client.virtualAccounts.get(first.account_number), first);

      const before = requests.length;
      const all = await client.virtualAccounts.list({ limit: 2 }).toArray();
      assert.equal(requests.length - before, 3, 'five accounts, two a page: three GETs');
      assert.deepEqual(
        all.map((account) => account.account_number).sort(),
        created.map((account) => account.account_number).sort(),
      );
      const sizes: number[] = [];
      for await (const page of client.virtualAccounts.list({ limit: 2 }).pages())
        sizes.push(page.items.length);
      assert.deepEqual(sizes, [2, 2, 1]);
      let seen = 0;
      for await (const account of client.virtualAccounts.list({ limit: 2 })) {
        assert.match(account.id, UUID);
        if (++seen === 3) break;
      }
      const page = await client.virtualAccounts.listPage({ limit: 4 });
      assert.equal(page.items.length, 4);
      assert.equal(typeof page.next_cursor, 'string');
      const byEmail = await client.virtualAccounts
        .list({ email: first.customer.email.toUpperCase() })
        .toArray();
      assert.deepEqual(
        byEmail.map((account) => account.id),
        [first.id],
      );

      const credit = await client.virtualAccounts.simulateCredit(first.account_number, {
        amount: 1500.5,
        narration: '=HYPERLINK("x")',
      });
      assert.equal(credit.transaction.amount, 1500.5);
      assert.equal(credit.transaction.amount_kobo, 150050);
      assert.equal(credit.account.balance, 1500.5);
      const sender = {
        account_name: 'CHIOMA ADEBAYO',
        account_number: '0123456789',
        bank_code: '000013',
        bank_name: 'GTBank',
      };
      const session = '000013261127143012123456789012';
      const named = await client.virtualAccounts.simulateCredit(first.account_number, {
        amount: 20,
        originator: sender,
        session_id: session,
      });
      assert.deepEqual(named.transaction.counterparty, sender);
      assert.equal(named.transaction.session_id, session);
      assert.equal(named.transaction.balance_after_kobo, 152050);
      // The same session id again: the earlier credit, not a second one.
      const repeated = await client.virtualAccounts.simulateCredit(first.account_number, {
        amount: 20,
        session_id: session,
      });
      assert.equal(repeated.transaction.id, named.transaction.id);
      assert.equal(repeated.account.balance_kobo, 152050);
      const transactions = await client.virtualAccounts
        .transactions(first.account_number, { limit: 1 })
        .toArray();
      assert.deepEqual(
        transactions.map((transaction) => transaction.amount),
        [20, 1500.5],
      );

      const inactive = await client.virtualAccounts.deactivate(first.account_number, { reason: 'paused' });
      assert.equal(inactive.status, 'inactive');
      assert.equal(inactive.status_reason, 'paused');
      await apiError(
        client.virtualAccounts.simulateCredit(first.account_number, { amount: 1 }),
        409,
        'ACCOUNT_INACTIVE',
      );
      assert.equal((await client.virtualAccounts.reactivate(first.account_number)).status, 'active');
      const second = created[1]!;
      const closed = await client.virtualAccounts.close(second.account_number, { reason: 'customer left' });
      assert.equal(closed.status, 'closed');
      await apiError(client.virtualAccounts.reactivate(second.account_number), 409, 'ACCOUNT_CLOSED');
      assert.deepEqual(
        (await client.virtualAccounts.list({ status: 'closed' }).toArray()).map((account) => account.id),
        [second.id],
      );

      const period = { from: utcDay(2), to: utcDay() };
      const statement = await client.virtualAccounts.statement(first.account_number, period);
      assert.equal(statement.account_number, first.account_number);
      assert.equal(statement.from, period.from);
      assert.equal(statement.opening_balance, 0);
      assert.equal(statement.total_credits, 1520.5);
      assert.equal(statement.closing_balance, 1520.5);
      assert.equal(statement.transactions.length, 2);
      const csv = await client.virtualAccounts.statementCsv(first.account_number, period);
      const lines = csv.trimEnd().split('\r\n');
      assert.equal(
        lines[0],
        '"date","reference","type","kind","narration","counterparty_name","counterparty_account_number","counterparty_bank_code","session_id","debit","credit","balance"',
      );
      assert.equal(lines.length, 3);
      assert.ok(
        lines.some((line) => line.includes(`"'=HYPERLINK(""x"")"`)),
        `a formula-like narration is escaped:\n${csv}`,
      );
      assert.ok(lines.some((line) => line.endsWith(',"1500.50","1500.50"')));
      assert.ok(lines.some((line) => line.endsWith(',"20.00","1520.50"')));
    });

    it('events: list with type, delivery status and created filters across pages, get, redeliver (409 without an endpoint), delivery log, retry and a test event', async (test) => {
      const { t } = suite;
      const fresh = await newPartner(suite, 'sandbox');
      const { client } = sdkClient(t.url, fresh.sandboxKey);
      const startedAt = new Date(Date.now() - 1000).toISOString();
      const accounts = [
        await client.virtualAccounts.create(customer()),
        await client.virtualAccounts.create(customer()),
      ];
      await client.virtualAccounts.simulateCredit(accounts[0]!.account_number, { amount: 5 });

      const created = await client.events
        .list({ type: 'virtual_account.created', created_from: startedAt, limit: 1 })
        .toArray();
      assert.equal(created.length, 2);
      for (const event of created) {
        assert.equal(event.type, 'virtual_account.created');
        assert.equal(event.environment, 'sandbox');
        assert.match(event.created_at, ISO_INSTANT);
      }
      assert.deepEqual(
        created.map((event) => (event.type === 'virtual_account.created' ? event.data.id : null)).sort(),
        accounts.map((account) => account.id).sort(),
      );
      const everything = await client.events.list().toArray();
      assert.deepEqual(everything.map((event) => event.type).sort(), [
        'virtual_account.created',
        'virtual_account.created',
        'virtual_account.credited',
      ]);
      const none = await client.events.listPage({ created_to: '2001-01-01' });
      assert.deepEqual(none, { items: [], next_cursor: null });

      const event = created[0]!;
      const { delivery: _delivery, ...stable } = event; // the delivery status moves on in the background
      const read = await client.events.get(event.id);
      assert.deepEqual({ ...read, delivery: undefined }, { ...stable, delivery: undefined });
      await apiError(client.events.get('msg_unknown'), 404, 'NOT_FOUND');
      await apiError(client.events.redeliver(event.id), 409, 'WEBHOOK_ENDPOINT_REQUIRED');

      const receiver = await new WebhookReceiver().start();
      test.after(() => receiver.stop());
      const endpoint = await client.webhookEndpoint.set(receiver.url);
      assert.match(endpoint.secret, /^whsec_/);
      assert.equal((await client.webhookEndpoint.get()).url, receiver.url);
      const redelivered = await client.events.redeliver(event.id);
      assert.equal(redelivered.id, event.id);
      await receiver.waitFor((deliveries) => deliveries.some((delivery) => delivery.id === event.id));

      // The attempt is logged once the receiver's answer is back: poll the delivery log for it.
      const attempts = await until('the redelivery in the delivery log', async () => {
        const logged = await client.webhookDeliveries.list({ event_id: event.id, limit: 1 }).toArray();
        return logged.length > 0 && logged;
      });
      assert.ok(attempts.every((attempt) => attempt.event_id === event.id));
      const retried = await client.webhookDeliveries.retry(attempts[0]!.id);
      assert.equal(retried.event_id, event.id);
      assert.equal(retried.trigger, 'manual');

      receiver.respond = () => 500;
      const tested = await client.webhookEndpoint.sendTestEvent();
      assert.equal(tested.event_type, 'webhook.test');
      assert.equal(tested.status_code, 500);
      assert.equal(tested.response_body_excerpt, 'ok');
      const failed = await client.events.list({ delivery_status: 'failed' }).toArray();
      assert.deepEqual(
        failed.map((item) => [item.id, item.type]),
        [[tested.event_id, 'webhook.test']],
      );

      const rotated = await client.webhookEndpoint.rotateSecret();
      assert.notEqual(rotated.secret, endpoint.secret);
      await client.webhookEndpoint.delete();
      await apiError(client.webhookEndpoint.get(), 404, 'NOT_FOUND');
    });

    it('team: REPRESENTATIVE_REQUIRED first, then create, list, get, update, delete', async () => {
      const { t } = suite;
      const fresh = await newPartner(suite, 'signed-in');
      const { client } = sdkClient(t.url, fresh.token);
      const body = memberBody() as Parameters<BaasClient['team']['create']>[0];
      await apiError(client.team.create(body), 409, 'REPRESENTATIVE_REQUIRED');
      await client.onboarding.saveRepresentative(
        representative({ id_file_url: 'https://files.acme.ng/ids/ada.pdf' }),
      );

      const member = await client.team.create(body);
      assert.equal(member.email, body.email);
      assert.equal(member.bvn, '*******4321');
      const second = await client.team.create(memberBody() as typeof body);
      assert.deepEqual(
        (await client.team.list({ limit: 1 }).toArray()).map((item) => item.id).sort(),
        [member.id, second.id].sort(),
      );
      assert.deepEqual(await client.team.get(member.id), member);
      const updated = await client.team.update(member.id, { ...body, address: '1 New Road, Abuja' });
      assert.equal(updated.address, '1 New Road, Abuja');
      await apiError(client.team.update(member.id, { ...body, bvn: '22000000000' }), 409, 'BVN_IMMUTABLE');
      assert.equal((await client.team.delete(second.id)).id, second.id);
      await apiError(client.team.get(second.id), 404, 'NOT_FOUND');
    });

    it('typed ApiError: 422 with the errors map, 404, 409 VIRTUAL_ACCOUNT_EXISTS with the existing account, 401; requestId is the X-Request-Id', async () => {
      const { t } = suite;
      const { client, responses } = sdkClient(t.url, partner.sandboxKey);
      const lastRequestId = () => responses.at(-1)?.headers.get('x-request-id');

      const invalid = await apiError(
        client.virtualAccounts.create({ ...customer(), email: 'not-an-email', phone: '' }),
        422,
        'VALIDATION_FAILED',
      );
      assert.ok(invalid instanceof ApiError && invalid instanceof Error);
      assert.equal(invalid.name, 'ApiError');
      assert.deepEqual(Object.keys(invalid.errors).sort(), ['email', 'phone']);
      assert.ok(invalid.errors['email']!.length > 0);
      assert.ok(invalid.requestId);
      assert.equal(invalid.requestId, lastRequestId());

      const missing = await apiError(client.virtualAccounts.get('0000000000'), 404, 'NOT_FOUND');
      assert.deepEqual(missing.errors, {});
      assert.equal(missing.requestId, lastRequestId());

      const body = customer();
      const existing = await client.virtualAccounts.create(body);
      const duplicate = await apiError(client.virtualAccounts.create(body), 409, 'VIRTUAL_ACCOUNT_EXISTS');
      assert.deepEqual(duplicate.data, existing);
      assert.equal(duplicate.requestId, lastRequestId());
      assert.notEqual(duplicate.requestId, invalid.requestId);

      const stranger = sdkClient(t.url, 'sk_sandbox_not_a_key');
      const unauthenticated = await apiError(
        stranger.client.virtualAccounts.list().toArray(),
        401,
        'UNAUTHENTICATED',
      );
      assert.equal(unauthenticated.requestId, stranger.responses.at(-1)?.headers.get('x-request-id'));
    });

    it('ConnectionError when nothing answers: GET tried maxRetries + 1 times', async () => {
      const port = await freePort();
      const { client, requests } = sdkClient(`http://127.0.0.1:${port}`, partner.sandboxKey, {
        maxRetries: 2,
      });
      await assert.rejects(client.virtualAccounts.get('0000000000'), (error: unknown) => {
        assert.ok(error instanceof ConnectionError);
        assert.equal(error.attempts, 3);
        assert.equal(error.method, 'GET');
        assert.ok(error.cause);
        return true;
      });
      assert.equal(requests.length, 3);
    });
  });
}
