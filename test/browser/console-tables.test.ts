import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  auditEvents,
  type ConsoleSession,
  cookieOf,
  newOperator,
  signInOperator,
  type TestOperator,
} from '../operators/operator-kit.js';
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
import { csvRecords } from '../support/csv.js';
import { uniqueEmail } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PARTNERS } from '../support/paths.js';
import { openConsoleAs } from './console-helpers.js';

/*
 * Issue 30's console tables: the audit log filtered by company and operator (text, not ids) and by
 * days, the filters in the address, names instead of ids in the rows, and an export of every
 * matching event as CSV; the review queue's search asks the server, so it finds a partner that is
 * not on the page loaded.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const CSV_COLUMNS = [
  'created_at',
  'company_id',
  'company_name',
  'actor_type',
  'actor_id',
  'actor_name',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'request_id',
  'ip',
] as const;

/** Polls `check` until it holds (10 s at most). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The texts of the audit table's rows (the header row left out). */
async function auditRows(page: Page): Promise<string[]> {
  const rows = await page.getByRole('grid', { name: 'Audit events' }).getByRole('row').allInnerTexts();
  return rows.slice(1);
}

/** The business names of the queue's rows, top to bottom. */
async function queueNames(page: Page): Promise<string[]> {
  return page.getByRole('table', { name: 'Partners' }).locator('tbody .review-queue__link').allInnerTexts();
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('console: audit log filters and export, queue search', () => {
  let browser: Browser;
  const pages: RecordedPage[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    for (const recorded of pages) await recorded.close();
    await browser?.close();
  });
  const suite = useApp('sqlite');

  let admin: TestOperator;
  let ngozi: TestOperator;
  let tayo: TestOperator;
  const companies: Record<string, number> = {};
  let firstDay = '';
  let thirdDay = '';

  /** The calling operator claims the partner (PUT …/assignee), as the console's Claim button does. */
  async function claim(session: ConsoleSession, companyId: number): Promise<void> {
    const response = await suite.t.api.put(
      `${ADMIN_PARTNERS}/${companyId}/assignee`,
      {},
      { headers: { cookie: cookieOf(session), 'x-csrf-token': session.csrf, origin: session.origin } },
    );
    assert.equal(response.status, 200, response.text);
  }

  before(async () => {
    // Day one: Kilo submits, Ngozi claims it. Two days later: Lima submits, Ngozi and Tayo each
    // claim a partner. Then twenty partners registering, and Zulu last: past the queue's first page.
    firstDay = isoDay(suite.t.clock.now());
    ngozi = await newOperator(suite.t, 'reviewer', { email: uniqueEmail('ngozi') });
    tayo = await newOperator(suite.t, 'reviewer', { email: uniqueEmail('tayo') });
    const kilo = await newPartner(suite, 'submitted', { business_name: 'Kilo Ledger Ltd' });
    companies['Kilo Ledger Ltd'] = kilo.companyId;
    await claim(ngozi.session, kilo.companyId);

    suite.t.clock.advance(2 * DAY_MS);
    thirdDay = isoDay(suite.t.clock.now());
    const lima = await newPartner(suite, 'submitted', { business_name: 'Lima Remit Ltd' });
    companies['Lima Remit Ltd'] = lima.companyId;
    const mike = await newPartner(suite, 'submitted', { business_name: 'Mike Wallet Ltd' });
    companies['Mike Wallet Ltd'] = mike.companyId;
    await claim(await signInOperator(suite.t, ngozi), lima.companyId);
    await claim(await signInOperator(suite.t, tayo), mike.companyId);

    for (let index = 0; index < 20; index += 1) {
      await newPartner(suite, 'registered', { business_name: `Filler Pay ${index + 1} Ltd` });
    }
    const zulu = await newPartner(suite, 'registered', { business_name: 'Zulu Search Ltd' });
    companies['Zulu Search Ltd'] = zulu.companyId;
    admin = await newOperator(suite.t, 'admin');
  });

  const openConsole = (path: string): Promise<RecordedPage> =>
    openConsoleAs(browser, suite.t.url, admin.session, path, pages, { handledStatuses: [401, 422] });

  it('filters the audit log by company, operator and days, keeps the filters in the address, and names who acted', async () => {
    const recorded = await openConsole('/console/audit');
    const { page } = recorded;
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('grid', { name: 'Audit events' });
    await table.getByRole('row').nth(1).waitFor();
    await assertAccessible(page, 'audit log');

    // By company: text in the business name; every row names Lima, none another partner.
    await page.getByRole('textbox', { name: 'Company' }).fill('lima remit');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/company=lima\+remit/);
    const limaEvents = await auditEvents(suite.t, { company: 'lima remit' });
    await eventually(
      "Lima's events only",
      async () => (await auditRows(page)).length === Math.min(limaEvents.length, 25),
    );
    for (const row of await auditRows(page)) assert.match(row, /Lima Remit Ltd/);
    assert.ok(limaEvents.length > 1, 'registration, onboarding and the claim at least');
    // The partner column is the partner's name, linking to it.
    const partnerLink = table.getByRole('link', { name: 'Lima Remit Ltd' }).first();
    assert.equal(await partnerLink.getAttribute('href'), `/console/partners/${companies['Lima Remit Ltd']}`);

    // By operator instead (Clear empties every field): whatever Ngozi did, named, not by id.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((url) => url.search === '');
    // The address changes before React renders the emptied form: type into that one.
    const company = page.getByRole('textbox', { name: 'Company' });
    await eventually('the form emptied', async () => (await company.inputValue()) === '');
    const operator = page.getByRole('textbox', { name: 'Operator' });
    await operator.fill(ngozi.email);
    // The keyboard submits the form.
    await operator.press('Enter');
    await page.waitForURL(/operator=/);
    const byNgozi = await auditEvents(suite.t, { operator: ngozi.email });
    assert.ok(byNgozi.some((event) => event.action === 'operator.signed_in'));
    await eventually("Ngozi's events", async () => (await auditRows(page)).length === byNgozi.length);
    for (const row of await auditRows(page)) assert.ok(row.includes(ngozi.email), row);

    // Her claims: two, on two days.
    await page.getByRole('textbox', { name: 'Action' }).fill('partner.assigned');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=partner.assigned/);
    await eventually('two claims by Ngozi', async () => (await auditRows(page)).length === 2);
    const claims = await auditRows(page);
    for (const row of claims) {
      assert.match(row, /Assigned the review/);
      assert.ok(row.includes(ngozi.name) && row.includes(ngozi.email), row);
      assert.ok(!row.includes(ngozi.id), `no raw operator id: ${row}`);
    }
    assert.match(claims[0]!, /Lima Remit Ltd/);
    assert.match(claims[1]!, /Kilo Ledger Ltd/);

    // And two days later only: the "to" day counts whole, so the claim made that day is in.
    await fillDate(dateField(page, 'From (UTC)'), thirdDay);
    await fillDate(dateField(page, 'To (UTC)'), thirdDay);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`created_from=${thirdDay}&created_to=${thirdDay}`));
    await eventually('one claim that day', async () => (await auditRows(page)).length === 1);
    assert.match((await auditRows(page))[0]!, /Lima Remit Ltd/);
    await screenshot(page, 'console-audit-log-operator-days-1280');

    // Reload and back keep the filters: the fields show them and the rows stay narrowed.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await eventually('still one claim', async () => (await auditRows(page)).length === 1);
    assert.equal(await page.getByRole('textbox', { name: 'Operator' }).inputValue(), ngozi.email);
    assert.equal(await dateValue(dateField(page, 'From (UTC)')), thirdDay);
    await fillDate(dateField(page, 'From (UTC)'), firstDay);
    await fillDate(dateField(page, 'To (UTC)'), firstDay);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`created_to=${firstDay}`));
    await eventually('the first day has the Kilo claim', async () => {
      const rows = await auditRows(page);
      return rows.length === 1 && rows[0]!.includes('Kilo Ledger Ltd');
    });
    await page.goBack();
    await page.waitForURL(new RegExp(`created_to=${thirdDay}`));
    await eventually('back to the Lima claim', async () => {
      const rows = await auditRows(page);
      return rows.length === 1 && rows[0]!.includes('Lima Remit Ltd');
    });
    assert.equal(await dateValue(dateField(page, 'To (UTC)')), thirdDay);

    // Nothing matches: a message says so, and the page stays accessible.
    await page.getByRole('textbox', { name: 'Company' }).fill('no such company anywhere');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No event matches these filters.', { exact: false }).waitFor();
    await assertAccessible(page, 'audit log, nothing matches');
    recorded.assertClean('audit log filters');
  });

  it('names the partner a link from its page filters by, and drops that filter on request', async () => {
    const kilo = companies['Kilo Ledger Ltd']!;
    const recorded = await openConsole(`/console/audit?company_id=${kilo}`);
    const { page } = recorded;
    const pinned = page.getByRole('list', { name: 'Also filtered by' });
    await pinned.getByText('Partner: Kilo Ledger Ltd').waitFor();
    const kiloEvents = await auditEvents(suite.t, { company_id: kilo });
    await eventually("Kilo's events", async () => (await auditRows(page)).length === kiloEvents.length);
    for (const row of await auditRows(page)) assert.match(row, /Kilo Ledger Ltd/);
    await assertAccessible(page, 'audit log of one partner');

    // Another filter keeps the partner; "Show every partner" drops it and keeps the other.
    await page.getByRole('textbox', { name: 'Action' }).fill('partner.assigned');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`action=partner.assigned&company_id=${kilo}`));
    await eventually('the one claim of Kilo', async () => (await auditRows(page)).length === 1);
    await pinned.getByRole('button', { name: 'Show every partner' }).click();
    await page.waitForURL((url) => url.searchParams.get('company_id') === null);
    await eventually('the three claims', async () => (await auditRows(page)).length === 3);
    recorded.assertClean('audit log of one partner');
  });

  it('exports every event matching the filters as CSV', async () => {
    const query = new URLSearchParams({ company: 'Remit', created_from: firstDay, created_to: thirdDay });
    const recorded = await openConsole(`/console/audit?${query}`);
    const { page } = recorded;
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Company' }).inputValue(), 'Remit');
    await page.getByRole('grid', { name: 'Audit events' }).getByRole('row').nth(1).waitFor();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), 'audit-events.csv');
    const path = await file.path();
    const records = csvRecords(await readFile(path, 'utf8'), CSV_COLUMNS);
    await page.getByText('Saved audit-events.csv.').waitFor();

    // The same events the API lists for these filters, and only Lima's.
    const expected = await auditEvents(suite.t, Object.fromEntries(query));
    assert.ok(expected.length > 1);
    assert.deepEqual(
      records.map((record) => [record.created_at, record.action]),
      expected.map((event) => [event.created_at, event.action]),
    );
    for (const record of records) {
      assert.equal(record.company_name, 'Lima Remit Ltd');
      assert.equal(record.company_id, String(companies['Lima Remit Ltd']));
    }
    const claimRecord = records.find((record) => record.action === 'partner.assigned');
    assert.equal(claimRecord?.actor_email, ngozi.email);
    assert.equal(claimRecord?.actor_name, ngozi.name);
    recorded.assertClean('audit log export');
  });

  it('searches the review queue on the server: a partner past the first page is found', async () => {
    const recorded = await openConsole('/console/review?show=all');
    const { page } = recorded;
    const table = page.getByRole('table', { name: 'Partners' });
    await table.getByRole('link').first().waitFor();
    assert.equal((await queueNames(page)).length, 20);
    assert.ok(!(await queueNames(page)).includes('Zulu Search Ltd'), 'Zulu is past the first page');
    await page.getByRole('button', { name: 'Next page' }).waitFor();

    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('zulu search');
    await page.waitForURL(/q=zulu\+search/);
    await eventually('Zulu found', async () => (await queueNames(page)).join() === 'Zulu Search Ltd');
    await page.getByText('1 partner matching the search.').waitFor();
    await assertAccessible(page, 'review queue, searched');

    // Kept on reload; an e-mail address finds its partner; nothing found says so.
    await page.reload();
    await eventually('still Zulu', async () => (await queueNames(page)).join() === 'Zulu Search Ltd');
    assert.equal(await search.inputValue(), 'zulu search');
    await search.fill('no partner called this');
    await page.getByText('No partner matches the search.').waitFor();
    await search.fill('');
    await eventually('every partner again', async () => (await queueNames(page)).length === 20);
    assert.doesNotMatch(page.url(), /q=/);
    recorded.assertClean('review queue search');
  });
});
