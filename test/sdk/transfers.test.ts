import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  type BaasClient,
  type Bank,
  type NameEnquiry,
  type Transfer,
  type TransferStatus,
  TransferWaitTimeoutError,
  type WebhookEvent,
  type WebhookEventOf,
  webhooks,
} from '../../sdk/src/index.js';
import { DIALECTS, useApp } from '../support/app.js';
import { UUID } from '../support/assertions.js';
import { customerBody, uniqueSuffix } from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { FAST_WEBHOOKS, startReceiver } from '../support/webhooks.js';
import { apiError, sdkClient } from './helpers.js';

type CustomerInput = Parameters<BaasClient['virtualAccounts']['create']>[0];

const GTBANK = '000013';
/** A 10-digit beneficiary number whose last two digits choose what the sandbox bank does. */
const beneficiary = (ending: string) => `01234567${ending}`;
const reference = () => `sdk-${uniqueSuffix()}`;

/** What a partner's handler does with a verified transfer event: `data` is narrowed to a Transfer. */
function transferOutcome(event: WebhookEvent): string | undefined {
  switch (event.type) {
    case 'transfer.successful':
      return `${event.data.reference} sent to ${event.data.beneficiary.account_name}, session ${event.data.session_id}`;
    case 'transfer.failed':
      return `${event.data.reference} failed: ${event.data.failure_reason}`;
    case 'transfer.reversed': {
      const returned: WebhookEventOf<'transfer.reversed'>['data'] = event.data;
      return `${returned.reference} returned NGN ${returned.amount.toFixed(2)}`;
    }
    case 'virtual_account.credited':
      // @ts-expect-error a credit carries {transaction, account}, not a transfer
      return event.data.reference;
    default:
      return undefined;
  }
}

for (const dialect of DIALECTS) {
  describe(`SDK transfers against the real server [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name, {
      env: { TRANSFER_REQUERY_MS: '200', TRANSFER_POLL_MS: '50', ...FAST_WEBHOOKS },
    });
    let partner: PartnerAt<'sandbox'>;
    before(async () => {
      partner = await newPartner(suite, 'sandbox');
    });

    /** The partner's SDK client (the bank's 30 s Retry-After is thrown, not waited for). */
    const clientOf = (token = partner.sandboxKey) =>
      sdkClient(suite.t.url, token, { maxRetryAfterMs: 1000 }).client;

    /** A fresh sandbox account holding `balance` naira. */
    async function funded(client: BaasClient, balance = 5000): Promise<string> {
      const account = await client.virtualAccounts.create(customerBody() as CustomerInput);
      if (balance > 0)
        await client.virtualAccounts.simulateCredit(account.account_number, { amount: balance });
      return account.account_number;
    }

    it('banks.list: NIP codes with names, sorted by name, this institution included', async () => {
      const banks: Bank[] = await clientOf().banks.list();
      assert.ok(banks.length > 10, `${banks.length} banks`);
      assert.deepEqual(banks.find((bank) => bank.code === GTBANK)?.code, GTBANK);
      assert.ok(
        banks.some((bank) => bank.code === '999999'),
        'the sandbox institution is listed',
      );
      for (const bank of banks) assert.match(bank.code, /^\d{6}$/);
      const names = banks.map((bank) => bank.name);
      assert.deepEqual(
        names,
        [...names].sort((a, b) => a.localeCompare(b, 'en')),
      );
    });

    it('transfers.nameEnquiry: the name, BENEFICIARY_NOT_FOUND for 00, BANK_UNAVAILABLE with Retry-After for 91', async () => {
      const client = clientOf();
      const found: NameEnquiry = await client.transfers.nameEnquiry({
        bank_code: GTBANK,
        account_number: beneficiary('10'),
      });
      assert.equal(found.account_name, 'SANDBOX BENEFICIARY');
      assert.equal(found.bank_code, GTBANK);
      assert.equal(found.account_number, beneficiary('10'));
      assert.equal(typeof found.bank_name, 'string');
      assert.ok(found.name_enquiry_ref.length > 0);

      await apiError(
        client.transfers.nameEnquiry({ bank_code: GTBANK, account_number: beneficiary('00') }),
        422,
        'BENEFICIARY_NOT_FOUND',
      );
      const unavailable = await apiError(
        client.transfers.nameEnquiry({ bank_code: GTBANK, account_number: beneficiary('91') }),
        503,
        'BANK_UNAVAILABLE',
      );
      assert.equal(unavailable.headers.get('retry-after'), '30');
      const invalid = await apiError(
        client.transfers.nameEnquiry({ bank_code: '123456', account_number: beneficiary('10') }),
        422,
        'VALIDATION_FAILED',
      );
      assert.ok(invalid.errors['bank_code'], JSON.stringify(invalid.errors));
    });

    it('transfers.create with the name enquiry ref, then waitForFinal: successful, and through processing when the bank times out (97)', async () => {
      const client = clientOf();
      const source = await funded(client);
      const enquiry = await client.transfers.nameEnquiry({
        bank_code: GTBANK,
        account_number: beneficiary('10'),
      });
      const created: Transfer = await client.transfers.create({
        source_account_number: source,
        amount: 1500,
        bank_code: enquiry.bank_code,
        account_number: enquiry.account_number,
        name_enquiry_ref: enquiry.name_enquiry_ref,
        narration: 'Invoice 42',
        reference: reference(),
      });
      assert.match(created.id, UUID);
      assert.ok(['pending', 'processing', 'successful'].includes(created.status), created.status);
      assert.equal(created.amount, 1500);
      assert.equal(created.fee, 10.75, 'NIP fee up to ₦5,000: ₦10 + 7.5 % VAT');
      assert.equal(created.beneficiary.account_name, 'SANDBOX BENEFICIARY');

      const done = await client.transfers.waitForFinal(created.id, { timeoutMs: 10_000, intervalMs: 50 });
      const status: TransferStatus = done.status;
      assert.equal(status, 'successful');
      assert.match(done.session_id ?? '', /^\d{30}$/);
      assert.deepEqual(await client.transfers.get(created.id), done);

      const slow = await client.transfers.create({
        source_account_number: source,
        amount: 100,
        bank_code: GTBANK,
        account_number: beneficiary('97'),
        reference: reference(),
      });
      const settled = await client.transfers.waitForFinal(slow.id, { timeoutMs: 10_000, intervalMs: 50 });
      assert.equal(settled.status, 'successful');
      assert.deepEqual(
        settled.status_history.map((change) => change.status),
        ['pending', 'processing', 'successful'],
      );
    });

    it('waitForFinal: failed for 05 with the reason; TransferWaitTimeoutError with the last state when time runs out', async () => {
      const client = clientOf();
      const source = await funded(client);
      const refused = await client.transfers.create({
        source_account_number: source,
        amount: 100,
        bank_code: GTBANK,
        account_number: beneficiary('05'),
        reference: reference(),
      });
      const failed = await client.transfers.waitForFinal(refused.id, { timeoutMs: 10_000, intervalMs: 50 });
      assert.equal(failed.status, 'failed');
      assert.match(failed.failure_reason ?? '', /do not honor/);
      const account = await client.virtualAccounts.get(source);
      assert.equal(account.available_balance, 5000, 'the hold is released');

      const slow = await client.transfers.create({
        source_account_number: source,
        amount: 100,
        bank_code: GTBANK,
        account_number: beneficiary('97'),
        reference: reference(),
      });
      await assert.rejects(
        client.transfers.waitForFinal(slow.id, { timeoutMs: 1, intervalMs: 1 }),
        (error) => {
          assert.ok(error instanceof TransferWaitTimeoutError, String(error));
          assert.equal(error.transfer.id, slow.id);
          assert.ok(['pending', 'processing'].includes(error.transfer.status), error.transfer.status);
          return true;
        },
      );
    });

    it('transfers.create errors: INSUFFICIENT_FUNDS; DUPLICATE_REFERENCE with the existing transfer in data', async () => {
      const client = clientOf();
      const poor = await funded(client, 50);
      await apiError(
        client.transfers.create({
          source_account_number: poor,
          amount: 1000,
          bank_code: GTBANK,
          account_number: beneficiary('10'),
          reference: reference(),
        }),
        409,
        'INSUFFICIENT_FUNDS',
      );

      const source = await funded(client);
      const body = {
        source_account_number: source,
        amount: 200,
        bank_code: GTBANK,
        account_number: beneficiary('10'),
        reference: reference(),
      };
      const first = await client.transfers.create(body);
      const duplicate = await apiError(
        client.transfers.create({ ...body, amount: 300 }),
        409,
        'DUPLICATE_REFERENCE',
      );
      const existing = duplicate.data as Transfer;
      assert.equal(existing.id, first.id);
      assert.equal(existing.reference, body.reference);
      assert.equal(existing.amount, 200);
    });

    it('transfers.create with the same idempotencyKey twice: the same transfer, sent once', async () => {
      const { client, responses } = sdkClient(suite.t.url, partner.sandboxKey);
      const source = await funded(client);
      const body = {
        source_account_number: source,
        amount: 250,
        bank_code: GTBANK,
        account_number: beneficiary('10'),
        reference: reference(),
      };
      const idempotencyKey = `order-${uniqueSuffix()}`;
      const first = await client.transfers.create(body, { idempotencyKey });
      const again = await client.transfers.create(body, { idempotencyKey });
      assert.equal(again.id, first.id);
      assert.deepEqual(again, first, 'the first answer, replayed');
      assert.equal(responses.at(-1)?.headers.get('idempotent-replayed'), 'true');
      const sent = await client.transfers.list({ reference: body.reference }).toArray();
      assert.deepEqual(
        sent.map((transfer) => transfer.id),
        [first.id],
      );
    });

    it('transfers.list: for await walks every page (limit 2), newest first; listPage and filters', async () => {
      const { client, requests } = sdkClient(suite.t.url, partner.sandboxKey);
      const source = await funded(client);
      const made: Transfer[] = [];
      for (let i = 0; i < 3; i++) {
        made.push(
          await client.transfers.create({
            source_account_number: source,
            amount: 10 + i,
            bank_code: GTBANK,
            account_number: beneficiary('10'),
            reference: reference(),
          }),
        );
      }

      const before = requests.length;
      const seen: string[] = [];
      for await (const transfer of client.transfers.list({ source_account_number: source, limit: 2 })) {
        assert.equal(transfer.source_account_number, source);
        seen.push(transfer.id);
      }
      assert.deepEqual(seen, made.map((transfer) => transfer.id).reverse());
      assert.equal(requests.length - before, 2, 'two pages fetched');

      const page = await client.transfers.listPage({ source_account_number: source, limit: 2 });
      assert.equal(page.items.length, 2);
      assert.equal(typeof page.next_cursor, 'string');
      const byReference = await client.transfers.list({ reference: made[1]!.reference }).toArray();
      assert.deepEqual(
        byReference.map((transfer) => transfer.id),
        [made[1]!.id],
      );
    });

    it('webhooks.verify types transfer.successful and transfer.failed deliveries: data is the transfer', async (test) => {
      const receiver = await startReceiver(test);
      const own = await newPartner(suite, 'sandbox');
      const client = clientOf(own.sandboxKey);
      const { secret } = await client.webhookEndpoint.set(receiver.url);
      receiver.secret = secret;
      const source = await funded(client);
      const sent = await client.transfers.create({
        source_account_number: source,
        amount: 100,
        bank_code: GTBANK,
        account_number: beneficiary('10'),
        reference: reference(),
      });
      const refused = await client.transfers.create({
        source_account_number: source,
        amount: 100,
        bank_code: GTBANK,
        account_number: beneficiary('05'),
        reference: reference(),
      });
      const transferEvents = async () => {
        const events: WebhookEvent[] = [];
        for (const delivery of receiver.received) {
          const headers = {
            'webhook-id': delivery.id,
            'webhook-timestamp': delivery.timestamp,
            'webhook-signature': delivery.signature,
          };
          const event = await webhooks.verify(delivery.body, headers, secret);
          if (event.type.startsWith('transfer.')) events.push(event);
        }
        return events;
      };
      await receiver.waitFor(
        (deliveries) => deliveries.filter((d) => d.body.includes('"type":"transfer.')).length >= 2,
        10_000,
      );
      const outcomes = (await transferEvents()).map(transferOutcome).sort();
      const session = (await client.transfers.get(sent.id)).session_id;
      assert.deepEqual(
        outcomes,
        [
          `${refused.reference} failed: do not honor (05)`,
          `${sent.reference} sent to SANDBOX BENEFICIARY, session ${session}`,
        ].sort(),
      );
    });
  });
}
