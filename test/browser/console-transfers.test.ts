import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { ConsoleSession } from '../operators/operator-kit.js';
import { newOperator } from '../operators/operator-kit.js';
import { useApp } from '../support/app.js';
import {
  assertAccessible,
  dateField,
  dateValue,
  fillDate,
  launchBrowser,
  type RecordedPage,
  screenshot,
} from '../support/browser.js';
import { uniqueSuffix } from '../support/factories.js';
import { createAccount, newPartner } from '../support/partners.js';
import { API_PREFIX, creditUrl } from '../support/paths.js';
import { openConsoleAs } from './console-helpers.js';

/*
 * The console's Transfers and Daily report pages against the real server: partners send sandbox
 * transfers through the API (one the bank takes, one it refuses with 05, two it leaves unanswered
 * with 97), the app's clock moves past the 10 minutes after which an open transfer is stuck, and an
 * operator finds the stuck one on top of "Needs attention", filters the list, opens a transfer's
 * history and reads the day's report, by mouse and by keyboard.
 */

const TRANSFERS = `${API_PREFIX}/services/transfers`;
/** The status query waits an hour: the 97 transfers stay processing through the test. */
const REQUERY_MS = 60 * 60 * 1000;

// biome-ignore lint/suspicious/noExplicitAny: the API's transfer object.
type Transfer = any;

/** What has keyboard focus: its role and accessible name, as a screen reader announces it. */
async function focused(page: Page): Promise<string> {
  const element = page.locator(':focus');
  if ((await element.count()) === 0) return 'nothing';
  const line = (await element.ariaSnapshot()).split('\n')[0] ?? '';
  return /^- (\w+(?: "[^"]*")?)/.exec(line)?.[1] ?? line;
}

/** Presses `key` until what has focus matches `target`; fails after `max` presses. */
async function pressUntil(page: Page, key: string, target: RegExp, max = 60): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press(key);
    const now = await focused(page);
    seen.push(now);
    if (target.test(now)) return;
  }
  assert.fail(`${key} never reached ${String(target)}; focus went through:\n${seen.join('\n')}`);
}

/** Polls `check` until it holds (10 s at most). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const naira = (kobo: number) =>
  `₦${Math.floor(kobo / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${String(kobo % 100).padStart(2, '0')}`;

describe('console: transfers and the daily report', () => {
  let browser: Browser;
  const pages: RecordedPage[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  // Registered before the app's hooks, so the browser is gone before the server closes.
  after(async () => {
    for (const recorded of pages) await recorded.close();
    await browser?.close();
  });
  const suite = useApp('sqlite', { env: { TRANSFER_REQUERY_MS: String(REQUERY_MS) } });

  let harbour: { companyId: number; sandboxKey: string };
  let baobab: { companyId: number; sandboxKey: string };
  let sent: Transfer;
  let refused: Transfer;
  let stuck: Transfer;
  let fresh: Transfer;
  let other: Transfer;
  let credits: number;
  let today: string;

  async function credit(key: string, accountNumber: string, amount: number) {
    const response = await suite.t.api.post(creditUrl(accountNumber), { amount }, { token: key });
    assert.equal(response.status, 201, response.text);
  }

  async function send(key: string, source: string, beneficiary: string, amount: number): Promise<Transfer> {
    const response = await suite.t.api.post(
      TRANSFERS,
      {
        source_account_number: source,
        amount,
        bank_code: '000013',
        account_number: beneficiary,
        narration: 'Supplier payout',
        reference: `PAYOUT-${uniqueSuffix()}`,
      },
      { token: key },
    );
    assert.equal(response.status, 202, response.text);
    return response.body.data;
  }

  /** The transfer once the sandbox bank has given the answer the test waits for. */
  async function settled(key: string, id: string, status: string): Promise<Transfer> {
    let transfer: Transfer;
    await eventually(`transfer ${id} ${status}`, async () => {
      const response = await suite.t.api.get(`${TRANSFERS}/${id}`, { token: key });
      transfer = response.body.data;
      return transfer.status === status;
    });
    return transfer;
  }

  /** A console page signed in as `session` (its cookie set in a fresh context), opened at `path`. */
  const openConsole = (session: ConsoleSession, path: string, width = 1280): Promise<RecordedPage> =>
    openConsoleAs(browser, suite.t.url, session, path, pages, { width, handledStatuses: [401] });

  /** The references of a table's rows, top to bottom. */
  const references = async (table: Locator) =>
    (await table.locator('tbody tr .transfers-table__open').allInnerTexts()).map((text) => text.trim());

  before(async () => {
    const first = await newPartner(suite, 'sandbox', { business_name: 'Harbour Pay Ltd' });
    const second = await newPartner(suite, 'sandbox', { business_name: 'Baobab Wallet' });
    harbour = first;
    baobab = second;
    const harbourAccount = (await createAccount(suite.t, first.sandboxKey)).account_number;
    const baobabAccount = (await createAccount(suite.t, second.sandboxKey)).account_number;
    await credit(first.sandboxKey, harbourAccount, 250_000);
    await credit(second.sandboxKey, baobabAccount, 10_000.5);
    credits = 25_000_000 + 1_000_050;
    today = new Date(suite.t.clock.now()).toISOString().slice(0, 10);

    sent = await send(first.sandboxKey, harbourAccount, '0123456789', 2_500.5);
    refused = await send(first.sandboxKey, harbourAccount, '0123456705', 1_200);
    stuck = await send(first.sandboxKey, harbourAccount, '0123456797', 60_000);
    other = await send(second.sandboxKey, baobabAccount, '0234567812', 750);
    sent = await settled(first.sandboxKey, sent.id, 'successful');
    refused = await settled(first.sandboxKey, refused.id, 'failed');
    stuck = await settled(first.sandboxKey, stuck.id, 'processing');
    other = await settled(second.sandboxKey, other.id, 'successful');

    // Eleven minutes on, the 97 transfer is stuck; a new one to a 97 account is only processing.
    suite.t.clock.advance(11 * 60 * 1000);
    fresh = await send(first.sandboxKey, harbourAccount, '0987654397', 5_000);
    fresh = await settled(first.sandboxKey, fresh.id, 'processing');
  });

  it('lists what needs attention first (stuck, then processing), then every transfer with filters and details; also at 375 px', async () => {
    const admin = await newOperator(suite.t, 'admin');
    const { page, ...recorded } = await openConsole(admin.session, '/console/review');
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Transfers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transfers' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/transfers');
    assert.equal(await page.title(), 'Transfers · Operator console');

    // The stuck one on top, although the processing one is newer.
    const attention = page.getByRole('grid', { name: 'Transfers needing attention' });
    await attention.locator('tbody tr').first().waitFor();
    assert.deepEqual(await references(attention), [stuck.reference, fresh.reference]);
    const stuckRow = attention.locator('tbody tr').nth(0);
    assert.match(await stuckRow.innerText(), /Processing\s*Stuck\s*No response code/);
    assert.match(await stuckRow.innerText(), /Harbour Pay Ltd/);
    assert.match(await stuckRow.innerText(), /₦60,000\.00/);
    assert.match(await stuckRow.innerText(), /₦53\.75/);
    assert.match(await stuckRow.innerText(), /1 query|0 queries/);
    assert.match(await stuckRow.innerText(), /Next /);
    const freshRow = attention.locator('tbody tr').nth(1);
    assert.match(await freshRow.innerText(), /Processing/);
    assert.doesNotMatch(await freshRow.innerText(), /Stuck/);

    // Every transfer, newest first, with its columns.
    const all = page.getByRole('grid', { name: 'All transfers' });
    await all.locator('tbody tr').first().waitFor();
    assert.deepEqual(await references(all), [
      fresh.reference,
      other.reference,
      stuck.reference,
      refused.reference,
      sent.reference,
    ]);
    const sentRow = all.locator('tbody tr').nth(4);
    const sentText = await sentRow.innerText();
    assert.match(sentText, /Harbour Pay Ltd\s*Sandbox/);
    assert.match(sentText, /SANDBOX BENEFICIARY/);
    assert.match(sentText, /0123456789/);
    assert.match(sentText, new RegExp(literally(naira(sent.amount_kobo))));
    assert.match(sentText, new RegExp(`Fee ${literally(naira(sent.fee_kobo))}`));
    assert.match(sentText, /Successful/);
    assert.match(sentText, /Response 00/);
    const refusedText = await all.locator('tbody tr').nth(3).innerText();
    assert.match(refusedText, /Failed/);
    assert.match(refusedText, /Response 05/);
    assert.match(refusedText, /₦1,200\.00/);

    await assertAccessible(page, 'transfers');
    await screenshot(page, 'console-transfers-1280');

    // A transfer's details: the failure reason and the status history.
    await all.getByRole('button', { name: refused.reference }).click();
    const dialog = page.getByRole('dialog', { name: `Transfer ${refused.reference}` });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /do not honor \(05\)/);
    assert.match(await dialog.innerText(), /Harbour Pay Ltd/);
    const history = dialog.getByRole('list').locator('li .badge');
    assert.deepEqual(
      (await history.allInnerTexts()).map((text) => text.trim()),
      refused.status_history.map(
        (change: { status: string }) => change.status[0]!.toUpperCase() + change.status.slice(1),
      ),
    );
    assert.deepEqual(
      refused.status_history.map((change: { status: string }) => change.status),
      ['pending', 'processing', 'failed'],
    );
    await assertAccessible(page, 'a transfer’s details');
    await screenshot(page, 'console-transfer-details-1280');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Filters: by status, by environment, by partner; each kept in the address.
    const filters = page.getByRole('search', { name: 'Filter the transfers' });
    await filters.getByRole('button', { name: /Status/ }).click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await eventually('only the failed one', async () => (await references(all)).join() === refused.reference);
    assert.equal(new URL(page.url()).searchParams.get('status'), 'failed');

    await filters.getByRole('button', { name: /Environment/ }).click();
    await page.getByRole('option', { name: 'Live' }).click();
    await page.getByText('No transfer matches these filters.').waitFor();
    await page
      .getByText('Nothing needs attention: the bank has answered for every transfer handed to it.')
      .waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await eventually('every transfer again', async () => (await references(all)).length === 5);

    await filters.getByRole('button', { name: /Partner/ }).click();
    await page.getByRole('option', { name: 'Baobab Wallet' }).click();
    await eventually('only Baobab’s', async () => (await references(all)).join() === other.reference);
    assert.equal(new URL(page.url()).searchParams.get('company_id'), String(baobab.companyId));
    await page
      .getByText('Nothing needs attention: the bank has answered for every transfer handed to it.')
      .waitFor();

    // From a partner's page, its transfers.
    await page.goto(`/console/partners/${harbour.companyId}`);
    await page.getByRole('heading', { level: 1, name: 'Harbour Pay Ltd' }).waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Transfers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transfers' }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('company_id'), String(harbour.companyId));
    await eventually('only Harbour’s', async () => (await references(all)).length === 4);
    assert.match(await filters.getByRole('button', { name: /Partner/ }).innerText(), /Harbour Pay Ltd/);
    assert.deepEqual(await references(attention), [stuck.reference, fresh.reference]);

    await page.setViewportSize({ width: 375, height: 900 });
    const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.equal(overflow, 0, 'nothing is wider than 375 px');
    await assertAccessible(page, 'transfers at 375 px');
    await screenshot(page, 'console-transfers-375');
    recorded.assertClean('transfers');
  });

  it("shows the day's report of an environment: money in, transfers by status, fees and balances", async () => {
    const reviewer = await newOperator(suite.t, 'reviewer');
    const { page, ...recorded } = await openConsole(reviewer.session, '/console/review');
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Daily report' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Daily report' }).waitFor();
    assert.equal(await page.title(), 'Daily report · Operator console');
    const browserToday = await page.evaluate('new Date().toISOString().slice(0, 10)');
    assert.equal(await dateValue(dateField(page, 'Day (UTC)')), browserToday);
    if (browserToday !== today) await page.goto(`/console/reports/daily?date=${today}`);

    // Live by default: nothing happened there.
    await page.getByRole('heading', { level: 2, name: /^Live, .+ \(UTC\)$/ }).waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Live' }).isChecked(), true);
    await page.getByText(/against the sponsor bank's statement of the settlement account/).waitFor();
    assert.match(await figure(page, 'Money in'), /₦0\.00\s*0 credits/);

    // The radio's label takes the click (the input itself is visually hidden under its mark).
    await page.getByRole('radiogroup', { name: 'Environment' }).getByText('Sandbox').click();
    await page.getByRole('heading', { level: 2, name: /^Sandbox, .+ \(UTC\)$/ }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('environment'), 'sandbox');

    const successful = [sent, other];
    const processing = [stuck, fresh];
    const sum = (list: Transfer[], field: string) => list.reduce((total, item) => total + item[field], 0);
    const fees = sum(successful, 'fee_kobo');
    assert.match(await figure(page, 'Money in'), new RegExp(`${literally(naira(credits))}\\s*2 credits`));
    assert.match(await figure(page, 'Fees'), new RegExp(literally(naira(fees))));
    assert.match(
      await figure(page, 'Balances at day end'),
      new RegExp(literally(naira(credits - sum(successful, 'amount_kobo') - fees))),
    );
    const rows = page
      .getByRole('grid', { name: 'Transfers created that day, by their status now' })
      .locator('tbody tr');
    const expected: Array<[string, number, number]> = [
      ['Pending', 0, 0],
      ['Processing', 2, sum(processing, 'amount_kobo')],
      ['Successful', 2, sum(successful, 'amount_kobo')],
      ['Failed', 1, refused.amount_kobo],
      ['Reversed', 0, 0],
      ['Total', 5, sum([...successful, ...processing, refused], 'amount_kobo')],
    ];
    assert.equal(await rows.count(), expected.length);
    for (const [index, [label, count, amount]] of expected.entries()) {
      const text = (await rows.nth(index).innerText()).replace(/\s+/g, ' ');
      assert.match(text, new RegExp(`^${label}\\b.*\\b${count} ${literally(naira(amount))}$`), text);
    }
    await assertAccessible(page, 'daily report');
    await screenshot(page, 'console-daily-report-1280');

    // Another day: nothing.
    await fillDate(dateField(page, 'Day (UTC)'), '2020-01-15');
    await page.getByRole('button', { name: 'Show report' }).click();
    await page.getByRole('heading', { level: 2, name: /^Sandbox, .+2020 \(UTC\)$/ }).waitFor();
    assert.match(await figure(page, 'Money in'), /₦0\.00\s*0 credits/);
    await page.setViewportSize({ width: 375, height: 900 });
    const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.equal(overflow, 0, 'nothing is wider than 375 px');
    await assertAccessible(page, 'daily report at 375 px');
    await screenshot(page, 'console-daily-report-375');
    recorded.assertClean('daily report');
  });

  it('works with the keyboard alone: the nav, a transfer’s details, a filter and the report', async () => {
    const admin = await newOperator(suite.t, 'admin');
    const { page, ...recorded } = await openConsole(admin.session, '/console/review');
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await pressUntil(page, 'Tab', /^link "Transfers"$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Transfers' }).waitFor();
    const attention = page.getByRole('grid', { name: 'Transfers needing attention' });
    await attention.locator('tbody tr').first().waitFor();

    // Into the attention table: its first row is the stuck transfer; Enter opens it.
    await pressUntil(page, 'Tab', new RegExp(`^row "${stuck.reference}"$`));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Transfer ${stuck.reference}` });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /The bank owes an answer/);
    await assertAccessible(page, 'a stuck transfer’s details');
    await screenshot(page, 'console-transfer-stuck-1280');
    assert.deepEqual(
      (await dialog.getByRole('list').locator('li .badge').allInnerTexts()).map((text) => text.trim()),
      ['Pending', 'Processing'],
    );
    await pressUntil(page, 'Tab', /^button "Close"$/);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    assert.match(await focused(page), new RegExp(`^row "${stuck.reference}"$`), 'focus went back to the row');

    // Back up to the status filter, choose "Failed".
    await pressUntil(page, 'Shift+Tab', /^button ".*Status"$/);
    await page.keyboard.press('Enter');
    await page.getByRole('listbox').waitFor();
    await pressUntil(page, 'ArrowDown', /^option "Failed"$/, 10);
    await page.keyboard.press('Enter');
    const all = page.getByRole('grid', { name: 'All transfers' });
    await eventually('only the failed one', async () => (await references(all)).join() === refused.reference);

    // On to the daily report, and to sandbox.
    await pressUntil(page, 'Shift+Tab', /^link "Daily report"$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Daily report' }).waitFor();
    await pressUntil(page, 'Tab', /^radio "Live"$/);
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { level: 2, name: /^Sandbox, / }).waitFor();
    assert.match(await figure(page, 'Money in'), /2 credits/);
    recorded.assertClean('transfers by keyboard');
  });
});

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A figure of the report by its term: its value's text. */
async function figure(page: Page, term: string): Promise<string> {
  const item = page.locator('.daily-report__figure').filter({ has: page.locator('dt', { hasText: term }) });
  return (await item.locator('dd').innerText()).replace(/\s+/g, ' ');
}
