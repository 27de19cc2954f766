import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ConsoleSession } from '../operators/operator-kit.js';
import { newOperator } from '../operators/operator-kit.js';
import { useApp } from '../support/app.js';
import { notification, notify, ORIGINATOR, sessionId } from '../support/bank.js';
import {
  assertAccessible,
  dateField,
  dateValue,
  fillDate,
  launchBrowser,
  type RecordedPage,
  screenshot,
} from '../support/browser.js';
import { createAccount, newPartner } from '../support/partners.js';
import { lifecycleUrl } from '../support/paths.js';
import { openConsoleAs } from './console-helpers.js';

/*
 * The console's Money in page against the real server: the sponsor bank's connector posts signed
 * credit notifications (credited, a duplicate, refused for an unknown and an inactive account), and
 * operators of either role read the day's list, refused first, with their partners, by mouse and by
 * keyboard.
 */

/** A number no account has: the connector's notification for it is refused (404) and kept. */
const UNKNOWN_ACCOUNT = '9999999999';

/** What has keyboard focus: its role and accessible name, as a screen reader announces it. */
async function focused(page: Page): Promise<string> {
  const element = page.locator(':focus');
  if ((await element.count()) === 0) return 'nothing';
  const line = (await element.ariaSnapshot()).split('\n')[0] ?? '';
  return /^- (\w+(?: "[^"]*")?)/.exec(line)?.[1] ?? line;
}

/** Presses `key` until what has focus matches `target`; fails after `max` presses. */
async function pressUntil(page: Page, key: string, target: RegExp, max = 40): Promise<void> {
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

describe('console: money in', () => {
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
  const suite = useApp('sqlite');

  let partner: { companyId: number };
  let accountNumber: string;
  let today: string;

  /** A console page signed in as `session` (its cookie set in a fresh context), opened at `path`. */
  const openConsole = (session: ConsoleSession, path: string, width = 1280): Promise<RecordedPage> =>
    openConsoleAs(browser, suite.t.url, session, path, pages, { width, handledStatuses: [401] });

  /** The outcome word of each row of the notifications table, top to bottom. */
  async function outcomes(page: Page): Promise<string[]> {
    const rows = page.getByRole('grid', { name: 'Credit notifications' }).locator('tbody tr');
    return (await rows.locator('.badge').allInnerTexts()).map((text) => text.trim());
  }

  /** The counts at the top as "Refused 2 Credited 2 Duplicate 1" (as written, not as styled). */
  async function counts(page: Page): Promise<string> {
    const terms = await page.locator('.money-in__count dt').allTextContents();
    const values = await page.locator('.money-in__count dd').allTextContents();
    return terms.map((term, i) => `${term} ${values[i]}`).join(' ');
  }

  const post = async (body: Record<string, unknown>, status: number) => {
    const response = await notify(suite.t.api, body, { nowMs: suite.t.clock.now() });
    assert.equal(response.status, status, response.text);
    return response;
  };

  before(async () => {
    const live = await newPartner(suite, 'live', { business_name: 'Sunrise Remit Ltd' });
    partner = live;
    accountNumber = (await createAccount(suite.t, live.liveKey)).account_number;
    const paused = (await createAccount(suite.t, live.liveKey)).account_number;
    const deactivated = await suite.t.api.post(
      lifecycleUrl(paused, 'deactivate'),
      { reason: 'Customer asked to pause it.' },
      { token: live.liveKey },
    );
    assert.equal(deactivated.status, 200, deactivated.text);
    today = new Date(suite.t.clock.now()).toISOString().slice(0, 10);

    // In the order the bank sends them (the list is newest first).
    const first = notification(accountNumber, { amount_kobo: 1_500_050, narration: 'Invoice 118' });
    await post(first, 200);
    await post(notification(UNKNOWN_ACCOUNT, { amount_kobo: 99_900 }), 404);
    await post(first, 200);
    await post(
      notification(accountNumber, {
        amount_kobo: 250_000,
        originator: { account_name: 'EMEKA NWOSU', account_number: '0246813579', bank_code: '058' },
      }),
      200,
    );
    await post(notification(paused, { amount_kobo: 10_000 }), 409);
  });

  it("lists the day's notifications, refused first, with counts, partners, senders and session IDs, also in 375 px; a reviewer sees it", async () => {
    const reviewer = await newOperator(suite.t, 'reviewer');
    const { page, ...recorded } = await openConsole(reviewer.session, '/console/review');
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Money in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Money in' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/money-in');
    assert.equal(await page.title(), 'Money in · Operator console');
    // Today (UTC) by default, as the browser's clock has it.
    const browserToday = await page.evaluate('new Date().toISOString().slice(0, 10)');
    assert.equal(await dateValue(dateField(page, 'Day (UTC)')), browserToday);
    if (browserToday !== today) await page.goto(`/console/money-in?date=${today}`);

    const table = page.getByRole('grid', { name: 'Credit notifications' });
    await table.waitFor();
    assert.deepEqual(await outcomes(page), ['Refused', 'Refused', 'Credited', 'Duplicate', 'Credited']);
    assert.equal(await counts(page), 'Refused 2 Credited 2 Duplicate 1');

    const rows = table.locator('tbody tr');
    // Newest first within each part: the inactive account's refusal, then the unknown account's.
    const inactive = rows.nth(0);
    assert.match(await inactive.innerText(), /Account inactive\s*ACCOUNT_INACTIVE/);
    assert.match(await inactive.innerText(), /₦100\.00/);
    await inactive.getByRole('link', { name: 'Sunrise Remit Ltd' }).waitFor();
    const unknown = rows.nth(1);
    assert.match(await unknown.innerText(), /No such account\s*NOT_FOUND/);
    assert.match(await unknown.innerText(), /Unknown account/);
    assert.match(await unknown.innerText(), new RegExp(UNKNOWN_ACCOUNT));
    assert.equal(await unknown.getByRole('link').count(), 0);

    // The sender without a bank name shows its bank code; one with a name shows the name.
    const byCode = rows.nth(2);
    assert.match(await byCode.innerText(), /EMEKA NWOSU/);
    assert.match(await byCode.innerText(), /Bank code 058 · 0246813579/);
    assert.match(await byCode.innerText(), /₦2,500\.00/);
    const duplicate = rows.nth(3);
    const original = rows.nth(4);
    for (const row of [duplicate, original]) {
      assert.match(
        await row.innerText(),
        new RegExp(`${ORIGINATOR.bank_name} · ${ORIGINATOR.account_number}`),
      );
      assert.match(await row.innerText(), /₦15,000\.50/);
      assert.match(await row.innerText(), new RegExp(accountNumber));
    }
    const sessions = await rows.locator('.money-in__session').allInnerTexts();
    assert.ok(
      sessions.every((session) => /^\d{30}$/.test(session)),
      sessions.join(', '),
    );
    assert.equal(sessions[3], sessions[4], 'the duplicate repeats the session ID it was credited under');

    await assertAccessible(page, 'money in');
    await screenshot(page, 'console-money-in-1280');
    await page.setViewportSize({ width: 375, height: 900 });
    const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.equal(overflow, 0, 'nothing is wider than 375 px');
    await assertAccessible(page, 'money in at 375 px');
    await screenshot(page, 'console-money-in-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    await original.getByRole('link', { name: 'Sunrise Remit Ltd' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sunrise Remit Ltd' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/partners/${partner.companyId}`);

    // Another day: nothing arrived then.
    await page.goBack();
    await table.waitFor();
    await fillDate(dateField(page, 'Day (UTC)'), '2020-01-15');
    await page.getByRole('button', { name: 'Show day' }).click();
    await page.getByText(/^No credit notification was received on .+ \(UTC\)\.$/).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('date'), '2020-01-15');
    assert.equal(await counts(page), 'Refused 0 Credited 0 Duplicate 0');
    await assertAccessible(page, 'money in: an empty day');
    await screenshot(page, 'console-money-in-empty-1280');
    recorded.assertClean('money in (reviewer)');
  });

  it('works with the keyboard alone: the nav entry, the day, the table and a partner link', async () => {
    const admin = await newOperator(suite.t, 'admin');
    const { page, ...recorded } = await openConsole(admin.session, '/console/review');
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await pressUntil(page, 'Tab', /^link "Money in"$/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Money in' }).waitFor();

    // The day's form is next, then the table.
    await pressUntil(page, 'Tab', /^button "Show day"$/);
    await page.keyboard.press('Enter');
    const table = page.getByRole('grid', { name: 'Credit notifications' });
    await table.locator('tbody tr').first().waitFor();

    // Into the table (its rows are named by their time), down to the third row (the first credited
    // one), across to its partner link, and open it.
    await pressUntil(page, 'Tab', /^row "\d{1,2}:\d{2}:\d{2}.* UTC"$/);
    const third = table.locator('tbody tr').nth(2);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await third.evaluate((row) => row.matches(':focus')), true, 'the third row has focus');
    assert.match(await third.innerText(), /Credited/);
    await pressUntil(page, 'ArrowRight', /^link "Sunrise Remit Ltd"$/, 10);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Sunrise Remit Ltd' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/partners/${partner.companyId}`);
    recorded.assertClean('money in by keyboard');
  });

  it('loads the refused notifications to the end before the rest, with "Load more", at 375 px', async () => {
    // 50 more refusals: the first page (50) holds refused ones only.
    for (let i = 0; i < 50; i += 1) {
      await post(notification(UNKNOWN_ACCOUNT, { amount_kobo: 100 + i, session_id: sessionId() }), 404);
    }
    const admin = await newOperator(suite.t, 'admin');
    const { page, ...recorded } = await openConsole(admin.session, `/console/money-in?date=${today}`, 375);
    const table = page.getByRole('grid', { name: 'Credit notifications' });
    await table.locator('tbody tr').first().waitFor();
    assert.equal((await outcomes(page)).length, 50);
    assert.ok((await outcomes(page)).every((outcome) => outcome === 'Refused'));
    assert.equal(await counts(page), 'Refused 50+ Credited 0+ Duplicate 0+');
    await page.getByText('Counts of the notifications loaded so far: load more for the rest.').waitFor();

    // The refused ones to the end first; the unfiltered list's first page then adds nothing new (its
    // 50 are the refusals on top already), so the next press reads on to the rest.
    const loadMore = page.getByRole('button', { name: 'Load more' });
    await loadMore.click();
    await eventually('the 52 refusals', async () => (await outcomes(page)).length === 52);
    await loadMore.click();
    await loadMore.waitFor({ state: 'detached' });
    const all = await outcomes(page);
    assert.deepEqual(all, [...Array(52).fill('Refused'), 'Credited', 'Duplicate', 'Credited']);
    assert.equal(await counts(page), 'Refused 52 Credited 2 Duplicate 1');
    assert.equal(await page.getByText('Counts of the notifications loaded so far').count(), 0);

    const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.equal(overflow, 0, 'nothing is wider than 375 px');
    await assertAccessible(page, 'money in: 55 notifications at 375 px');
    recorded.assertClean('money in: load more');
  });
});
