// Quickstart for @baas/sdk. Run it against a server with a sandbox API key:
//   BAAS_URL=http://127.0.0.1:3000 BAAS_API_KEY=sk_sandbox_... node quickstart.mjs
// It receives webhooks on a local port: it points the sandbox webhook endpoint there while it runs
// and puts the previous endpoint back at the end.
import { once } from 'node:events';
import http from 'node:http';
import { ApiError, BaasClient, WebhookVerificationError, webhooks } from '@baas/sdk';

const { BAAS_URL, BAAS_API_KEY } = process.env;
if (!BAAS_URL || !BAAS_API_KEY) {
  console.error('Set BAAS_URL (e.g. http://127.0.0.1:3000) and BAAS_API_KEY (a sandbox API key).');
  process.exit(1);
}

// 1. A client: the API key says which environment (sandbox or live) every call works in.
const client = new BaasClient({ baseUrl: BAAS_URL, token: BAAS_API_KEY });

// 2. A webhook receiver: verify every delivery (signature, timestamp) before trusting it.
let secret = ''; // the endpoint's whsec_… secret, known once the endpoint is set below
const creditsSeen = new Map(); // account number → verified virtual_account.credited event
const server = http.createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const rawBody = Buffer.concat(chunks).toString('utf8'); // the exact bytes that were signed
  try {
    const event = await webhooks.verify(rawBody, request.headers, secret);
    response.writeHead(204).end(); // acknowledge fast; anything but 2xx is retried
    if (event.type === 'virtual_account.credited') {
      creditsSeen.set(event.data.account.account_number, event); // typed: data is a Credit
    }
  } catch (error) {
    response.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
  }
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const receiverUrl = `http://127.0.0.1:${server.address().port}/webhooks`;

const previous = await client.webhookEndpoint.get().catch((error) => {
  if (error instanceof ApiError && error.errorCode === 'NOT_FOUND') return null; // none set yet
  throw error;
});
secret = (await client.webhookEndpoint.set(receiverUrl)).secret;

try {
  // 3. Open an account: the SDK sends an Idempotency-Key and retries safely on failures.
  const customer = {
    first_name: 'Tunde',
    last_name: 'Bakare',
    email: `tunde.${Date.now()}@example.com`,
    phone: '+2348090000000',
  };
  const account = await client.virtualAccounts.create(customer);
  console.log(`Created account ${account.account_number} (${account.account_name}, ${account.bank_name})`);

  // 4. Errors are typed: one account per e-mail, and the existing one comes with the error.
  try {
    await client.virtualAccounts.create(customer);
  } catch (error) {
    if (!(error instanceof ApiError) || error.errorCode !== 'VIRTUAL_ACCOUNT_EXISTS') throw error;
    console.log(
      `Already exists: ${error.data.account_number} (HTTP ${error.status}, request ${error.requestId})`,
    );
  }

  // 5. Sandbox only: simulate an incoming transfer.
  const credit = await client.virtualAccounts.simulateCredit(account.account_number, {
    amount: 2500.75,
    narration: 'First deposit',
  });
  console.log(
    `Credited NGN ${credit.transaction.amount.toFixed(2)}; balance NGN ${credit.account.balance.toFixed(2)}`,
  );

  // 6. Send money out: name enquiry first, show the name, then send under your own reference.
  const payee = await client.transfers.nameEnquiry({ bank_code: '000013', account_number: '0123456789' });
  const sent = await client.transfers.create({
    source_account_number: account.account_number,
    amount: 1000,
    bank_code: payee.bank_code,
    account_number: payee.account_number,
    name_enquiry_ref: payee.name_enquiry_ref,
    narration: 'First payout',
    reference: `payout-${Date.now()}`, // yours, unique: a repeat is refused, never sent twice
  });
  // A server learns the outcome from the transfer.* webhooks; a script can wait for it.
  const settled = await client.transfers.waitForFinal(sent.id, { timeoutMs: 60_000, intervalMs: 500 });
  console.log(
    `Sent NGN ${settled.amount.toFixed(2)} to ${payee.account_name} (${payee.bank_name}): ${settled.status}, fee NGN ${settled.fee.toFixed(2)}`,
  );

  // 7. Lists are async iterators over every page.
  let active = 0;
  for await (const item of client.virtualAccounts.list({ status: 'active', limit: 50 })) {
    if (item.status === 'active') active += 1;
  }
  console.log(`Active accounts: ${active}`);

  // 8. The credit arrives as a signed webhook.
  const deadline = Date.now() + 30_000;
  while (!creditsSeen.has(account.account_number)) {
    if (Date.now() > deadline) throw new Error('no virtual_account.credited webhook within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const event = creditsSeen.get(account.account_number);
  console.log(`Webhook verified: ${event.type} of NGN ${event.data.transaction.amount.toFixed(2)}`);
} finally {
  if (previous) await client.webhookEndpoint.set(previous.url);
  else await client.webhookEndpoint.delete();
  server.close();
}
