import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { until } from '../support/assertions.js';
import { launchBrowser } from '../support/browser.js';
import { csvRecords } from '../support/csv.js';
import { uniqueSuffix } from '../support/factories.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import { creditUrl, TRANSFERS, transferUrl } from '../support/paths.js';
import {
  checkPage,
  choose,
  type DashboardPage,
  focused,
  openDashboard,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * The dashboard's tables over data made through the public API: the accounts list searched (in the
 * address, so a reload keeps it), ordered, sized and counted, with the keyboard; "Export CSV" of the
 * accounts the list selects and of the transfers, each file read back and compared with the API.
 */

// biome-ignore lint/suspicious/noExplicitAny: objects as the API returns them.
type Json = any;

const ACCOUNT_COLUMNS = [
  'account_number',
  'account_name',
  'bank_code',
  'bank_name',
  'status',
  'first_name',
  'last_name',
  'email',
  'phone',
  'balance',
  'available_balance',
  'environment',
  'created_at',
];
const TRANSFER_COLUMNS = [
  'id',
  'reference',
  'status',
  'source_account_number',
  'amount',
  'fee',
  'currency',
  'beneficiary_account_name',
  'beneficiary_account_number',
  'beneficiary_bank_code',
  'beneficiary_bank_name',
  'narration',
  'session_id',
  'failure_reason',
  'environment',
  'created_at',
  'updated_at',
];

describe('dashboard: searching, ordering, sizing and exporting tables', { timeout: 240_000 }, () => {
  const suite = useApp('sqlite', { env: { TRANSFER_REQUERY_MS: '200', TRANSFER_POLL_MS: '50' } });
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'sandbox'>;
  /** The five "Okoro" accounts, oldest first. */
  const okoros: Json[] = [];
  /** Every account of the partner, oldest first. */
  const accounts: Json[] = [];
  /** The partner's transfers once settled, oldest first. */
  const transfers: Json[] = [];

  async function transfer(body: Record<string, unknown>): Promise<Json> {
    const key = partner.sandboxKey;
    const response = await suite.t.api.post(
      TRANSFERS,
      { amount: '250.00', bank_code: '000013', reference: `table-${uniqueSuffix()}`, ...body },
      { token: key },
    );
    assert.equal(response.status, 202, response.text);
    return until(
      'the transfer to settle',
      async () => {
        const read = (await suite.t.api.get(transferUrl(response.body.data.id), { token: key })).body.data;
        return ['successful', 'failed'].includes(read.status) ? read : undefined;
      },
      15_000,
      50,
    );
  }

  before(async () => {
    browser = await launchBrowser();
    partner = await newPartner(suite, 'sandbox');
    for (let i = 0; i < 23; i += 1) {
      const okoro = i % 4 === 0 && okoros.length < 5;
      const account = await createAccount(suite.t, partner.sandboxKey, {
        first_name: okoro ? `Ada${i}` : `Customer${i}`,
        last_name: okoro ? 'Okoro' : 'Adeyemi',
      });
      accounts.push(account);
      if (okoro) okoros.push(account);
    }
    assert.equal(okoros.length, 5);
    const source = okoros[0].account_number;
    const credit = await suite.t.api.post(
      creditUrl(source),
      { amount: '10000' },
      { token: partner.sandboxKey },
    );
    assert.equal(credit.status, 201, credit.text);
    transfers.push(
      await transfer({
        source_account_number: source,
        bank_code: '999999',
        account_number: accounts[1].account_number,
        narration: '=SUM(A1:A9)',
      }),
    );
    transfers.push(await transfer({ source_account_number: source, account_number: '0123456705' }));
    transfers.push(await transfer({ source_account_number: source, account_number: '0123456710' }));

    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    recorded.context.setDefaultTimeout(10_000);
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    await recorded?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
  });

  const count = () => page.locator('.accounts__count');
  const shownNumbers = () => page.locator('.accounts__number').allInnerTexts();
  const numbersOf = (list: Json[]) => list.map((account) => account.account_number as string);

  /** Presses Tab until what has focus matches `target` (role "name"), as a keyboard user would. */
  async function tabTo(target: RegExp, max = 60): Promise<void> {
    for (let presses = 0; presses < max; presses += 1) {
      if (target.test(await focused(page))) return;
      await page.keyboard.press('Tab');
    }
    assert.fail(`${target} never got focus (last: ${await focused(page)})`);
  }

  /** Chooses `option` in the select whose button has focus, with the keyboard alone. */
  async function chooseWithKeys(option: string): Promise<void> {
    await page.keyboard.press('Enter');
    const listbox = page.getByRole('listbox');
    await listbox.waitFor();
    for (let presses = 0; presses < 5; presses += 1) {
      if ((await listbox.locator('[role="option"][data-focused]').innerText()) === option) break;
      await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('Enter');
    await listbox.waitFor({ state: 'detached' });
  }

  it('counts the whole list, and searches it by name with the keyboard, the search kept in the address', async () => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Virtual accounts' })
      .click();
    await count().getByText('Showing 1–20 of 23 accounts').waitFor();
    assert.deepEqual(await shownNumbers(), numbersOf(accounts).reverse().slice(0, 20), 'newest first');

    await tabTo(/^searchbox "Search"/);
    await page.keyboard.type('okoro');
    await count().getByText('5 accounts matching “okoro”').waitFor();
    assert.deepEqual(await shownNumbers(), numbersOf(okoros).reverse());
    const address = new URL(page.url());
    assert.equal(address.searchParams.get('q'), 'okoro');
    assert.deepEqual([...address.searchParams.keys()], ['q'], 'nothing but the search in the address');

    // By an account number's first digits, and by full name, both prefixes.
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(okoros[2].account_number.slice(0, 9));
    await until('the list to narrow to the number', async () =>
      (await shownNumbers()).includes(okoros[2].account_number) && (await shownNumbers()).length < 20
        ? true
        : undefined,
    );
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(`${okoros[1].customer.first_name} oKo`);
    await count().getByText(`1 account matching “${okoros[1].customer.first_name} oKo”`).waitFor();
    assert.deepEqual(await shownNumbers(), [okoros[1].account_number]);

    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('okoro');
    await count().getByText('5 accounts matching “okoro”').waitFor();
    await page.reload();
    await count().getByText('5 accounts matching “okoro”').waitFor();
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'okoro');

    // An account's page and Back: the searched list again.
    await page.getByRole('row').filter({ hasText: okoros[3].account_number }).click();
    await page.getByRole('heading', { level: 1, name: `Account ${okoros[3].account_number}` }).waitFor();
    await page.goBack();
    await count().getByText('5 accounts matching “okoro”').waitFor();
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'okoro');
    // The menu's link to the list has no search: the field follows the address and empties.
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Virtual accounts' })
      .click();
    await count().getByText('Showing 1–20 of 23 accounts').waitFor();
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), '');
    await page.goBack();
    await count().getByText('5 accounts matching “okoro”').waitFor();
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'okoro');
    recorded.assertClean('account search');
  });

  it('flips the order and changes the page size, with the keyboard', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).focus();
    await tabTo(/^button ".*Order"/);
    await chooseWithKeys('Oldest first');
    await until('the oldest first', async () =>
      (await shownNumbers())[0] === okoros[0].account_number ? true : undefined,
    );
    assert.deepEqual(await shownNumbers(), numbersOf(okoros));
    assert.equal(new URL(page.url()).searchParams.get('order'), 'asc');

    // The page size counts with the search cleared: 23 accounts.
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await count().getByText('Showing 1–20 of 23 accounts').waitFor();
    assert.deepEqual(await shownNumbers(), numbersOf(accounts).slice(0, 20), 'oldest first');
    await page.getByRole('button', { name: 'Next page' }).click();
    await count().getByText('Showing 21–23 of 23 accounts').waitFor();
    assert.equal((await shownNumbers()).length, 3);

    await page.getByRole('searchbox', { name: 'Search' }).focus();
    await tabTo(/^button ".*Rows per page"/);
    await chooseWithKeys('50 rows');
    await count().getByText('23 accounts', { exact: true }).waitFor();
    assert.deepEqual(await shownNumbers(), numbersOf(accounts), 'every account on one page, from page 1');
    assert.equal(new URL(page.url()).searchParams.get('limit'), '50');
    await page.getByRole('navigation', { name: 'Account pages' }).waitFor({ state: 'detached' });

    await choose(page, /Order$/, 'Newest first');
    await until('the newest first', async () =>
      (await shownNumbers())[0] === accounts.at(-1).account_number ? true : undefined,
    );
    assert.equal(new URL(page.url()).searchParams.get('order'), null, 'the default is left out');
    recorded.assertClean('order and page size');
  });

  it('says so when nothing matches the search', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('zzz-nobody');
    await page
      .getByText(
        "No account starts with “zzz-nobody”. The search looks at the start of the account number, the customer's e-mail address, full name and last name.",
      )
      .waitFor();
    assert.equal(await count().innerText(), '');
    await checkPage(page, 'accounts-search-empty-1280');
  });

  it('exports every account the search selects, in its order, as the CSV the API gives', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('okoro');
    await choose(page, /Order$/, 'Oldest first');
    await count().getByText('5 accounts matching “okoro”').waitFor();
    await until('the oldest first', async () =>
      (await shownNumbers())[0] === okoros[0].account_number ? true : undefined,
    );
    await checkPage(page, 'accounts-search-1280');

    const saving = page.waitForEvent('download');
    await tabTo(/^button "Export CSV"/);
    await page.keyboard.press('Enter');
    const download = await saving;
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(download.suggestedFilename(), `virtual-accounts-sandbox-${today}.csv`);
    const rows = csvRecords(readFileSync((await download.path()) as string, 'utf8'), ACCOUNT_COLUMNS);
    assert.deepEqual(
      rows.map((row) => row['account_number']),
      numbersOf(okoros),
      'the five Okoro accounts, oldest first: all of them, not one page',
    );
    // ₦10,000 less a book transfer of 250.00 and a transfer of 250.00 with its fee; the failed one moved nothing.
    assert.equal(rows[0]!['balance'], '9489.25');
    assert.equal(rows[1]!['last_name'], 'Okoro');
    assert.equal(rows[1]!['email'], okoros[1].customer.email);
    await page.getByText(`Saved ${download.suggestedFilename()}.`).waitFor();
    await checkPage(page, 'accounts-exported-1280');
    recorded.assertClean('accounts export');
  });

  it("exports the partner's transfers from the transfers page", async () => {
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Transfers' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Transfers' }).waitFor();
    await page.getByText('3 transfers', { exact: true }).waitFor();
    const saving = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await saving;
    assert.match(download.suggestedFilename(), /^transfers-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csvRecords(readFileSync((await download.path()) as string, 'utf8'), TRANSFER_COLUMNS);
    assert.deepEqual(
      rows.map((row) => [row['id'], row['status'], row['amount'], row['fee']]),
      transfers
        .map((item) => [item.id, item.status, '250.00', item.fee_kobo === 0 ? '0.00' : '10.75'])
        .reverse(),
    );
    assert.equal(rows.at(-1)!['narration'], "'=SUM(A1:A9)", 'the formula is defused');
    await page.getByText(`Saved ${download.suggestedFilename()}.`).waitFor();

    // The filters apply to the export too.
    await choose(page, / Status$/, 'Failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('1 transfer matching the filters', { exact: true }).waitFor();
    const filtered = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const failedRows = csvRecords(
      readFileSync((await (await filtered).path()) as string, 'utf8'),
      TRANSFER_COLUMNS,
    );
    assert.deepEqual(
      failedRows.map((row) => row['id']),
      [transfers[1].id],
    );
    await checkPage(page, 'transfers-exported-1280');
    recorded.assertClean('transfers export');
  });
});
