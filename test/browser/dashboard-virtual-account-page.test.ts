import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { launchBrowser } from '../support/browser.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { checkPage, type DashboardPage, openDashboard, signInThroughForm } from './dashboard-helpers.js';

/*
 * A virtual account's page in the sandbox: the account number's copy button (named for screen
 * readers, saying "Copied."), the "ready" banner of the visit that created the account only, a
 * second account for the same customer pointing to the first, and a simulated credit's form
 * emptied after it succeeded.
 */
describe('dashboard: a virtual account page', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'sandbox'>;
  let accountNumber: string;

  before(async () => {
    browser = await launchBrowser();
    partner = await newPartner(suite, 'sandbox');
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    recorded.context.setDefaultTimeout(10_000);
    await recorded.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.t.url });
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    recorded?.assertClean('virtual account page');
    await recorded?.close();
    await browser?.close();
  });

  const createAccount = async () => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Virtual accounts' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Virtual accounts' }).waitFor();
    await page.getByRole('button', { name: 'Create account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a sandbox account' });
    await dialog.getByLabel('First name').fill('Tunde');
    await dialog.getByLabel('Last name').fill('Bakare');
    await dialog.getByLabel('E-mail address').fill('tunde@example.com');
    await dialog.getByLabel('Phone number').fill('+2348090000000');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    return dialog;
  };

  it('copies the account number with a named button that says "Copied."; the ready banner is for the first visit only', async () => {
    await createAccount();
    const banner = page.getByText(/is ready for Tunde Bakare/);
    await banner.waitFor();
    const heading = await page.getByRole('heading', { level: 1 }).innerText();
    accountNumber = /Account (\d{10})/.exec(heading)?.[1] ?? '';
    assert.match(accountNumber, /^\d{10}$/, heading);

    const copy = page.getByRole('button', { name: `Copy account number ${accountNumber}` });
    assert.equal(await copy.innerText(), 'Copy');
    await copy.click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), accountNumber);
    await checkPage(page, 'account-copied-1280');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Account ${accountNumber}` }).waitFor();
    await page.locator('.account__balance-value').waitFor();
    assert.equal(await banner.count(), 0, 'no banner on a reload');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Virtual accounts' }).waitFor();
    await page.goForward();
    await page.locator('.account__balance-value').waitFor();
    assert.equal(await banner.count(), 0, 'no banner when coming back');
  });

  it('a second account for the same customer links to the existing one', async () => {
    const dialog = await createAccount();
    const duplicate = dialog
      .getByRole('alert')
      .filter({ hasText: 'This customer already has an account here.' });
    await duplicate.waitFor();
    await checkPage(page, 'account-duplicate-1280');
    await duplicate.getByRole('link', { name: accountNumber }).click();
    await page.getByRole('heading', { level: 1, name: `Account ${accountNumber}` }).waitFor();
    await page.locator('.account__balance-value').waitFor();
    assert.equal(await page.getByText(/is ready for Tunde Bakare/).count(), 0);
  });

  it('empties the amount and the narration after a simulated credit', async () => {
    const form = page.getByRole('region', { name: 'Simulate a credit' });
    await form.getByLabel('Amount (₦)').fill('2500');
    await form.getByLabel('Narration (optional)').fill('Invoice 42');
    await form.getByRole('button', { name: 'Credit account' }).click();
    await page.getByText('₦2,500.00 credited. New balance: ₦2,500.00.').waitFor();
    await page.getByRole('row').filter({ hasText: 'Invoice 42' }).waitFor();
    assert.equal(await form.getByLabel('Narration (optional)').inputValue(), '');
    assert.equal(await form.getByLabel('Amount (₦)').inputValue(), '');
  });
});
