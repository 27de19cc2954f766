import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { sessionId } from '../support/bank.js';
import { launchBrowser } from '../support/browser.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  assertNoOverflow,
  checkPage,
  type DashboardPage,
  focused,
  openDashboard,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * Money in on the dashboard's account page (sandbox): the Advanced part of "Simulate a credit"
 * (sender and session ID, checked in the page as the API checks them), the credit's sender and
 * session ID in the result and in the transactions, both balances, and a session ID credited once.
 */
describe('dashboard: money in on the account page', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'sandbox'>;
  let accountNumber: string;
  const session = sessionId();

  before(async () => {
    browser = await launchBrowser();
    partner = await newPartner(suite, 'sandbox');
    accountNumber = (await createAccount(suite.t, partner.sandboxKey)).account_number;
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    recorded.context.setDefaultTimeout(10_000);
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    await recorded?.close();
    await browser?.close();
  });

  const form = () => page.getByRole('region', { name: 'Simulate a credit' });
  const advanced = () => page.locator('details.account__advanced');
  /** Where the button is on the page (not in the viewport, which scrolls to what gets focus). */
  const placeOf = (button: Locator) =>
    button.evaluate((element) => {
      const rect = (
        element as unknown as { getBoundingClientRect(): { left: number; top: number } }
      ).getBoundingClientRect();
      const view = globalThis as unknown as { scrollX: number; scrollY: number };
      return { x: rect.left + view.scrollX, y: rect.top + view.scrollY };
    });
  const balances = async () =>
    [
      await page.locator('.account__balance-value').innerText(),
      await page.locator('.account__available-value').innerText(),
    ].join(' / ');

  it("checks the sender and session ID in the page, without moving the button when a corrected field's error goes", async () => {
    await page.goto(`/dashboard/accounts/${accountNumber}`);
    await page.getByRole('heading', { level: 1, name: `Account ${accountNumber}` }).waitFor();
    assert.equal(await balances(), '₦0.00 / ₦0.00');
    assert.equal(await advanced().getAttribute('open'), null, 'Advanced starts closed');

    await form().getByLabel('Amount (₦)').fill('25000');
    await form().getByText('Advanced: sender and session ID').click();
    await form().getByLabel("Sender's account number").fill('12345');
    await form().getByLabel('Session ID (optional)').fill('123');
    // Leaving a wrong field shows nothing yet: an error line appearing as the pointer presses the
    // button below would move it away (the press would miss); errors come with the submit.
    const button = form().getByRole('button', { name: 'Credit account' });
    const at = await placeOf(button);
    await page.keyboard.press('Tab');
    assert.equal(await form().getByText('A session ID is 30 digits.').count(), 0);
    assert.deepEqual(await placeOf(button), at, 'leaving the field moves nothing');
    await button.click();
    await form().getByText('An account number is 10 digits.').waitFor();
    await form().getByText("Give the sender's account name too, or clear the sender's fields.").waitFor();
    await form().getByText("Give the sender's bank code too, or clear the sender's fields.").waitFor();
    await form().getByText('A session ID is 30 digits.').waitFor();
    assert.equal(
      await focused(page),
      'textbox "Sender\'s account name" [invalid]',
      'the first to fix has focus',
    );
    await checkPage(page, 'simulate-credit-advanced-errors-1280');

    // Corrected, the error goes as it is typed, before focus leaves: the button stays where it is.
    const accountField = form().getByLabel("Sender's account number");
    await accountField.fill('0123456789');
    assert.equal(await form().getByText('An account number is 10 digits.').count(), 0);
    const before = await placeOf(button);
    await page.keyboard.press('Tab');
    assert.deepEqual(await placeOf(button), before, 'leaving the field moves nothing');

    // A closed Advanced part opens by itself to show the field the browser refuses.
    await form().getByText('Advanced: sender and session ID').click();
    assert.equal(await advanced().getAttribute('open'), null);
    await button.click();
    await page.locator('details.account__advanced[open]').waitFor();
    assert.equal(await form().getByLabel('Session ID (optional)').isVisible(), true);
    assert.deepEqual(
      recorded.apiRefusals.filter((line) => line.includes('simulate-credit')),
      [],
      'nothing was sent',
    );
    recorded.assertClean('advanced checks');
  });

  it('credits with a sender and a session ID, shows them in the result and the transactions, and credits a session ID once', async () => {
    await form().getByLabel("Sender's account name").fill('CHIOMA ADEBAYO');
    await form().getByLabel("Sender's bank name (optional)").fill('GTBank');
    await form().getByLabel("Sender's bank code").fill('000013');
    await form().getByLabel('Session ID (optional)').fill(session);
    await form().getByRole('button', { name: 'Credit account' }).click();

    const result = form().getByRole('status').filter({ hasText: 'credited' });
    await result.getByText('₦25,000.00 credited. New balance: ₦25,000.00.').waitFor();
    assert.match(await result.innerText(), /CHIOMA ADEBAYO · GTBank · 0123456789/);
    assert.match(await result.innerText(), new RegExp(`Session ID\\s*${session}`));
    assert.equal(await balances(), '₦25,000.00 / ₦25,000.00');

    const rows = page.getByRole('grid', { name: 'Transactions' }).locator('tbody tr');
    await rows.filter({ hasText: session }).waitFor();
    assert.equal(await rows.count(), 1);
    const row = await rows.first().innerText();
    for (const expected of [
      /Transfer in/,
      /CHIOMA ADEBAYO/,
      /GTBank · 0123456789/,
      new RegExp(`Session ID\\s*${session}`),
      /\+₦25,000\.00/,
    ]) {
      assert.match(row, expected);
    }
    assert.equal(await rows.first().locator('td').last().innerText(), '₦25,000.00', 'the balance after');
    await checkPage(page, 'simulate-credit-sender-1280');

    // The same session ID again: the earlier credit, nothing credited twice.
    await form().getByLabel('Amount (₦)').fill('100');
    await form().getByLabel('Session ID (optional)').fill(session);
    await form().getByRole('button', { name: 'Credit account' }).click();
    await form()
      .getByText(`Session ID ${session} was already credited: nothing was credited again.`)
      .waitFor();
    await form().getByText('This is the earlier credit of ₦25,000.00. Balance: ₦25,000.00.').waitFor();
    assert.equal(await balances(), '₦25,000.00 / ₦25,000.00');
    assert.equal(await rows.count(), 1);
    await checkPage(page, 'simulate-credit-already-credited-1280');
    recorded.assertClean('credit with a sender');
  });

  it('fits the account page with its sender and session ID in 375 px', async () => {
    await page.setViewportSize({ width: 375, height: 900 });
    try {
      await page.reload();
      await page.getByRole('grid', { name: 'Transactions' }).locator('tbody tr').first().waitFor();
      await page.getByText('Advanced: sender and session ID').click();
      await assertNoOverflow(page, 'account page at 375 px');
      await checkPage(page, 'account-money-in-375');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    recorded.assertClean('account page at 375 px');
  });
});
