import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { dateField, fillDate, launchBrowser, readsInOrder } from '../support/browser.js';
import { customerBody } from '../support/factories.js';
import { seedEntries } from '../support/ledger.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { accountUrl, CREATE_ACCOUNT, creditUrl, lifecycleUrl } from '../support/paths.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import {
  assertNoOverflow,
  checkPage,
  choose,
  type DashboardPage,
  openDashboard,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * The signed-in workspace of /dashboard for an approved partner: API keys, the webhook endpoint with
 * its delivery log and the events, the directors and officers, and virtual accounts (filters, paging, lifecycle,
 * statement). Data the pages only show is made over the API, as the partner's backend would.
 */
describe('dashboard: developers, directors and officers, and virtual accounts', () => {
  const suite = useApp('sqlite', { env: { WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '600000' } });
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'active'>;
  const receiver = new WebhookReceiver();

  const api = (path: string, body?: unknown) => suite.t.api.post(path, body, { token: partner.token });

  before(async () => {
    await receiver.start();
    browser = await launchBrowser();
    partner = await newPartner(suite, 'active');
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    await recorded.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.t.url });
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    await recorded?.close();
    await browser?.close();
    await receiver.stop();
  });

  it('creates an API key whose secret is shown once, lists it by its last 4 characters and revokes it', async () => {
    await page.getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/developers/api-keys');
    await page.getByText('No API keys yet.').waitFor();

    await page.getByRole('button', { name: 'Create API key' }).click();
    let dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name').fill('backend-sandbox');
    assert.equal(await dialog.getByRole('radio', { name: 'Sandbox' }).isChecked(), true);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    dialog = page.getByRole('dialog', { name: 'Your new API key' });
    const secret = await dialog.locator('code').innerText();
    assert.match(secret, /^sk_sandbox_/);
    await dialog.getByText('Copy this API key now: it is shown only once.').waitFor();
    await dialog.getByRole('button', { name: 'Copy API key' }).click();
    await dialog.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await checkPage(page, 'api-key-secret-1280');
    await dialog.getByRole('button', { name: 'I have stored the key' }).click();

    const row = page.getByRole('row').filter({ hasText: 'backend-sandbox' });
    await row.getByText(`sk_sandbox_…${secret.slice(-4)}`).waitFor();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');
    const withKey = await suite.t.api.get('/baas/api/v1/services/virtual-account', { token: secret });
    assert.equal(withKey.status, 200, 'the key works');

    // Approved partners may create live keys too.
    await page.getByRole('button', { name: 'Create API key' }).click();
    dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name').fill('backend-live');
    await dialog.getByText('Live', { exact: true }).click();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    assert.match(
      await page.getByRole('dialog', { name: 'Your new API key' }).locator('code').innerText(),
      /^sk_live_/,
    );
    await page.getByRole('button', { name: 'I have stored the key' }).click();

    await row.getByRole('button', { name: 'Revoke backend-sandbox' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke backend-sandbox?' });
    await confirm.getByText('cannot be undone').waitFor();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('Revoked').waitFor();
    assert.equal(
      (await suite.t.api.get('/baas/api/v1/services/virtual-account', { token: secret })).status,
      401,
    );
    await checkPage(page, 'api-keys-1280');
  });

  it('sets the webhook endpoint with its secret shown once, retries a failed delivery and rotates the secret', async () => {
    receiver.respond = () => 500;
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 2, name: 'Endpoint (sandbox)' }).waitFor();
    await page.getByText('No endpoint is set').waitFor();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Set endpoint' }).click();
    const secret = await page.locator('.secret__value').innerText();
    assert.match(secret, /^whsec_/);
    receiver.secret = secret;
    await page.getByRole('definition').filter({ hasText: receiver.url }).waitFor();

    const created = await api(CREATE_ACCOUNT, customerBody({ first_name: 'Webhook', last_name: 'Receiver' }));
    assert.equal(created.status, 201, created.text);
    await receiver.waitFor((deliveries) => deliveries.length >= 1);
    assert.ok(receiver.received[0]?.verified, 'signed with the secret the page showed');

    await page.getByRole('button', { name: 'Refresh' }).click();
    const failed = page.getByRole('row').filter({ hasText: 'Failed · HTTP 500' });
    await failed.waitFor();
    receiver.respond = () => 200;
    await failed.getByRole('button', { name: /^Retry Account created attempt 1$/ }).click();
    await page.getByText('Retried: attempt 2 succeeded.').waitFor();
    await page.getByRole('row').filter({ hasText: 'Delivered · 200' }).waitFor();
    await checkPage(page, 'webhooks-1280');

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('alertdialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    await page.getByText('The previous secret keeps signing beside it for 24 hours').waitFor();
    const rotated = await page.locator('.secret__value').innerText();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByText('Still signing until').waitFor();
  });

  it('lists the events with a type filter and redelivers one under its webhook-id', async () => {
    const account = (await api(CREATE_ACCOUNT, customerBody({ first_name: 'Events', last_name: 'Filter' })))
      .body.data;
    const credit = await api(creditUrl(account.account_number), {
      amount: '2500.75',
      narration: 'Event test',
    });
    assert.equal(credit.status, 201, credit.text);

    await page.getByRole('tab', { name: 'Events' }).click();
    await page.getByRole('heading', { level: 2, name: 'Events' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Account created' }).first().waitFor();
    await choose(page, /Event type/, 'Account credited');
    await page.waitForURL(/type=virtual_account\.credited/);
    const row = page.getByRole('row').filter({ hasText: `${account.account_number} · ₦2,500.75` });
    await row.waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: 'Account created' }).count(), 0);
    await checkPage(page, 'events-1280');

    const eventId = (await row.locator('code').innerText()).trim();
    const before = receiver.received.filter((delivery) => delivery.id === eventId).length;
    await row.getByRole('button', { name: `Redeliver Account credited ${eventId}` }).click();
    await page.getByText(`Account credited ${eventId} is queued for redelivery.`).waitFor();
    await receiver.waitFor(
      (deliveries) => deliveries.filter((delivery) => delivery.id === eventId).length > before,
    );
  });

  it('manages directors and officers: one added with a masked BVN, edited, and removed after confirmation', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.getByRole('tab', { name: 'Directors and officers' }).click();
    await page.getByRole('heading', { level: 2, name: 'Directors and officers' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/settings/officers');
    await page.getByText('No directors or officers on file yet.').waitFor();
    await page.getByRole('button', { name: 'Add director or officer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a director or officer' });
    await dialog.getByLabel('First name').fill('Chidi');
    await dialog.getByLabel('Last name').fill('Okafor');
    await dialog.getByLabel('E-mail address').fill('chidi@acme.ng');
    await dialog.getByLabel('Phone number').fill('+2348020000000');
    await fillDate(dateField(dialog, 'Date of birth'), '1990-06-01');
    await dialog.getByText('Male', { exact: true }).click();
    await choose(dialog, /Role in the business/, 'Compliance officer');
    await dialog.getByLabel('BVN').fill('22987654321');
    await choose(dialog, /ID type/, "Driver's licence");
    await dialog.getByLabel('ID document link').fill('https://files.acme.ng/ids/chidi.pdf');
    await dialog.getByLabel('Address', { exact: true }).fill('4 Broad Street, Lagos');
    await checkPage(page, 'team-add-1280');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('Chidi Okafor was added.').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Chidi Okafor' });
    await row.getByText('*******4321').waitFor();
    assert.equal(await page.getByText('22987654321').count(), 0, 'the BVN is never shown whole');

    await row.getByRole('button', { name: 'Edit Chidi Okafor' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Chidi Okafor' });
    await edit.getByText('A BVN cannot change once given.').waitFor();
    await edit.getByLabel('Phone number').fill('+2348029999999');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Chidi Okafor was updated.').waitFor();
    await row.getByText('+2348029999999').waitFor();
    await checkPage(page, 'team-1280');

    await row.getByRole('button', { name: 'Remove Chidi Okafor' }).click();
    await page
      .getByRole('alertdialog', { name: 'Remove Chidi Okafor?' })
      .getByRole('button', { name: 'Remove', exact: true })
      .click();
    await page.getByText('Chidi Okafor was removed.').waitFor();
    await page.getByText('No directors or officers on file yet.').waitFor();
  });

  it('explains that a compliance representative must be on file before directors and officers', async () => {
    const newcomer = await newPartner(suite, 'verified');
    const other = await openDashboard(browser, suite.t.url);
    try {
      // The page's address before users had roles still leads to it.
      await other.page.goto('/dashboard/team');
      await other.page.getByRole('heading', { level: 1, name: 'Partner dashboard' }).waitFor();
      await signInThroughForm(other.page, newcomer);
      await other.page.getByText('First, your compliance representative.').waitFor();
      assert.equal(new URL(other.page.url()).pathname, '/dashboard/settings/officers');
      await other.page.getByRole('button', { name: 'Add director or officer' }).click();
      const dialog = other.page.getByRole('dialog', { name: 'Add a director or officer' });
      await dialog.getByLabel('First name').fill('Chidi');
      await dialog.getByLabel('Last name').fill('Okafor');
      await dialog.getByLabel('E-mail address').fill('chidi@acme.ng');
      await dialog.getByLabel('Phone number').fill('+2348020000000');
      await fillDate(dateField(dialog, 'Date of birth'), '1990-06-01');
      await dialog.getByText('Male', { exact: true }).click();
      await choose(dialog, /Role in the business/, 'Director');
      await dialog.getByLabel('BVN').fill('22987654321');
      await choose(dialog, /ID type/, 'International passport');
      await dialog.getByLabel('ID document link').fill('https://files.acme.ng/ids/chidi.pdf');
      await dialog.getByLabel('Address', { exact: true }).fill('4 Broad Street, Lagos');
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog.getByText('Add your compliance representative first.').waitFor();
      await checkPage(other.page, 'team-representative-required-1280');
      other.assertClean('representative required');
    } finally {
      await other.close();
    }
  });

  it('filters virtual accounts by status, e-mail and creation date, and pages through them', async () => {
    for (let i = 0; i < 21; i += 1) {
      const response = await api(
        CREATE_ACCOUNT,
        customerBody({ first_name: `Customer${i}`, last_name: 'Paging' }),
      );
      assert.equal(response.status, 201, response.text);
    }
    const paused = (await api(CREATE_ACCOUNT, customerBody({ first_name: 'Paused', last_name: 'Customer' })))
      .body.data;
    await api(lifecycleUrl(paused.account_number, 'deactivate'), { reason: 'Customer asked for a pause.' });
    // 2 accounts from the earlier tests, 21, and the inactive one.
    const total = 24;

    await page.getByRole('link', { name: 'Virtual accounts' }).click();
    await page.getByText(`Showing 1–20 of ${total} accounts`).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(`Showing 21–${total} of ${total} accounts`).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText(`Showing 1–20 of ${total} accounts`).waitFor();

    await choose(page, / Status$/, 'Inactive');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 account matching the filters').waitFor();
    await page.getByRole('row').filter({ hasText: 'Paused Customer' }).getByText('Inactive').waitFor();
    assert.match(page.url(), /status=inactive/);
    await checkPage(page, 'accounts-filtered-1280');

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText(`Showing 1–20 of ${total} accounts`).waitFor();
    await page.getByLabel('Customer e-mail').fill(paused.customer.email.toUpperCase());
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 account matching the filters').waitFor();

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText(`Showing 1–20 of ${total} accounts`).waitFor();
    const yesterday = new Date(suite.t.clock.now() - 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    await fillDate(dateField(page, 'Created to (UTC)'), yesterday);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No account matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText(`Showing 1–20 of ${total} accounts`).waitFor();
  });

  it('deactivates, reactivates and closes an account with reasons, and downloads its statement as CSV', async () => {
    const account = (
      await api(CREATE_ACCOUNT, customerBody({ first_name: 'Lifecycle', last_name: 'Customer' }))
    ).body.data;
    await api(creditUrl(account.account_number), { amount: '1000', narration: '=cmd|"/c calc"' });

    await page.goto(`/dashboard/accounts/${account.account_number}`);
    await page.locator('.account__balance-value', { hasText: '₦1,000.00' }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    const today = new Date().toISOString().slice(0, 10);
    assert.match(
      file.suggestedFilename(),
      new RegExp(`^statement-${account.account_number}-\\d{4}-\\d{2}-\\d{2}-to-${today}\\.csv$`),
    );
    const csv = readFileSync(await file.path(), 'utf8');
    assert.match(csv.split('\n')[0] ?? '', /"debit","credit","balance"/);
    assert.match(csv, /1000\.00/);
    assert.match(csv, /'=cmd/, 'a formula-looking cell is defused');
    await page.getByText(`Saved ${file.suggestedFilename()}.`).waitFor();

    await page.getByRole('button', { name: 'Deactivate' }).click();
    let dialog = page.getByRole('alertdialog', { name: 'Deactivate this account?' });
    await dialog.getByRole('button', { name: 'Deactivate account' }).click();
    await dialog.getByText('Give a reason.').waitFor();
    await dialog.getByLabel('Reason').fill('Customer reported a lost phone.');
    await checkPage(page, 'account-deactivate-1280');
    await dialog.getByRole('button', { name: 'Deactivate account' }).click();
    await page.getByText('This account is inactive.').waitFor();
    await page.getByText('Reason: Customer reported a lost phone.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Credit account' }).isDisabled(), true);

    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page
      .getByRole('alertdialog', { name: 'Reactivate this account?' })
      .getByRole('button', { name: 'Reactivate account' })
      .click();
    await page.locator('.page-header').getByText('Active', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Close account' }).click();
    dialog = page.getByRole('alertdialog', { name: 'Close this account for good?' });
    await dialog.getByLabel('Reason').fill('Customer left the platform.');
    await dialog.getByRole('button', { name: 'Close account' }).click();
    await page.getByText('This account is closed.').waitFor();
    assert.equal(
      await page.getByRole('button', { name: 'Reactivate' }).count(),
      0,
      'a closed account cannot change',
    );
    const stored = await suite.t.api.get(accountUrl(account.account_number), { token: partner.token });
    assert.equal(stored.body.data.status, 'closed');
    await checkPage(page, 'account-closed-1280');
    recorded.assertClean('the workspace');
  });

  it("shows a customer's name, the account name and a narration stored with bidirectional controls as written, isolated", async () => {
    const account = (await api(CREATE_ACCOUNT, customerBody({ first_name: 'Bidi', last_name: 'Customer' })))
      .body.data;
    // Stored before the API refused such characters: written straight into the database (the
    // credit as the ledger books a bank's, with its balance).
    await suite.t.db
      .updateTable('virtual_accounts')
      .set({ first_name: 'Tunde \u202Edevorppa', account_name: 'Acme/Tunde \u202Edevorppa' })
      .where('account_number', '=', account.account_number)
      .execute();
    await seedEntries(suite.t.db, account.account_number, [
      { kobo: 25_000, narration: 'Rent \u202E000,01 NGN', at: suite.t.clock.now() },
    ]);

    await page.goto(`/dashboard/accounts/${account.account_number}`);
    const narration = page.getByRole('row').filter({ hasText: 'Rent' });
    await narration.waitFor();
    for (const [what, locator] of [
      ['the header', page.locator('.page-header')],
      ['the details', page.locator('.detail-list')],
      ['the narration', narration],
    ] as const) {
      assert.ok(await readsInOrder(locator), `${what} reads as stored`);
      assert.ok((await locator.locator('bdi .bidi-control').count()) > 0, `${what}: the control is marked`);
    }
    await checkPage(page, 'account-bidi-1280');
    recorded.assertClean('bidirectional text');
  });

  it('fits the signed-in pages in 375 px, with no serious axe violation', async () => {
    const narrow = await openDashboard(browser, suite.t.url, { width: 375 });
    try {
      await signInThroughForm(narrow.page, partner);
      await narrow.page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
      const account = (await api(CREATE_ACCOUNT, customerBody({ first_name: 'Narrow', last_name: 'Screen' })))
        .body.data;
      await api(creditUrl(account.account_number), { amount: '1500.50', narration: 'Mobile check' });
      for (const [path, heading, name] of [
        ['/dashboard/overview', 'Acme Payments Ltd', 'overview-375'],
        ['/dashboard/onboarding', 'Onboarding', 'onboarding-375'],
        ['/dashboard/accounts', 'Virtual accounts', 'accounts-375'],
        [`/dashboard/accounts/${account.account_number}`, `Account ${account.account_number}`, 'account-375'],
        ['/dashboard/developers/api-keys', 'Developers', 'api-keys-375'],
        ['/dashboard/developers/webhooks', 'Developers', 'webhooks-375'],
        ['/dashboard/developers/events', 'Developers', 'events-375'],
        ['/dashboard/settings/users', 'Settings', 'users-375'],
        ['/dashboard/settings/officers', 'Settings', 'team-375'],
      ] as const) {
        await narrow.page.goto(path);
        await narrow.page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await narrow.page.locator('.loading').first().waitFor({ state: 'detached' });
        await assertNoOverflow(narrow.page, path);
        await checkPage(narrow.page, name);
      }
      narrow.assertClean('signed-in pages at 375 px');
    } finally {
      await narrow.close();
    }
  });
});
