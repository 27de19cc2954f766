import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import {
  assertAccessible,
  launchBrowser,
  newPage,
  type RecordedPage,
  screenshot,
} from '../support/browser.js';
import { ADMIN_PREFIX } from '../support/paths.js';

/*
 * The console of a server started without ADMIN_API_KEY (issue 30: the page stayed on "Loading…"
 * and asked GET /admin/session 2,000 times in 17 s, until the IP was rate limited), and the apps'
 * retry policy: a 4xx is never asked again, a 5xx at most 3 times, 1, 2 and 4 s apart.
 */

const SESSION = `${ADMIN_PREFIX}session`;

/** Every request the page makes for the console's session, with when it started (ms). */
function recordSessionRequests(page: Page): number[] {
  const times: number[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === SESSION) times.push(Date.now());
  });
  return times;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('console without ADMIN_API_KEY', () => {
  let browser: Browser;
  const pages: RecordedPage[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    for (const recorded of pages) await recorded.close();
    await browser?.close();
  });
  const suite = useApp('sqlite', { env: { ADMIN_API_KEY: '' } });

  async function open(handledStatuses: number[]): Promise<RecordedPage> {
    const recorded = await newPage(browser, suite.t.url, { handledStatuses });
    recorded.context.setDefaultTimeout(10_000);
    pages.push(recorded);
    return recorded;
  }

  it('says the back office is off and how to turn it on, asks for the session once, and again only on "Check again"', async () => {
    const recorded = await open([404]);
    const { page } = recorded;
    const requests = recordSessionRequests(page);
    await page.goto('/console');
    await page.getByRole('heading', { level: 1, name: 'The back office is off' }).waitFor();
    assert.equal(await page.title(), 'The back office is off · Operator console');
    const main = page.getByRole('main');
    await main.getByText('npm run operator -- invite --email you@example.com --role admin').waitFor();
    await main.getByText('ADMIN_API_KEY=local-operator-key-0123456789abcdef npm start').waitFor();
    assert.equal(await main.getByText('Loading…').count(), 0);

    // Left alone for 4 s, the page asks nothing more.
    await sleep(4_000);
    assert.ok(requests.length <= 3, `${requests.length} requests to ${SESSION} in 4 s`);
    assert.equal(requests.length, 1);
    await assertAccessible(page, 'back office off');
    await screenshot(page, 'console-back-office-off-1280');

    // "Check again" asks once more, and says when it did.
    await page.getByRole('button', { name: 'Check again' }).click();
    await page.getByText(/^Still off when checked at /).waitFor();
    await sleep(1_000);
    assert.equal(requests.length, 2);

    await page.setViewportSize({ width: 375, height: 900 });
    const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.equal(overflow, 0, 'nothing is wider than the viewport at 375 px');
    await assertAccessible(page, 'back office off at 375 px');
    await screenshot(page, 'console-back-office-off-375');
    recorded.assertClean('back office off');
  });

  it('shows the same page for a signed-in page of the console, keeping that page in ?next= to come back to', async () => {
    const recorded = await open([404]);
    const { page } = recorded;
    const requests = recordSessionRequests(page);
    await page.goto('/console/review?show=all');
    await page.getByRole('heading', { level: 1, name: 'The back office is off' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/review?show=all');
    await sleep(3_000);
    assert.ok(requests.length <= 3, `${requests.length} requests to ${SESSION} in 3 s`);
    recorded.assertClean('back office off, from a signed-in page');
  });

  it('retries a 5xx at most 3 times, 1, 2 and 4 s apart, then shows sign-in and asks nothing more', async () => {
    const recorded = await open([503]);
    const { page } = recorded;
    await page.route(`**${SESSION}`, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ status: 'error', error_code: 'SERVICE_UNAVAILABLE', message: 'Down.' }),
      }),
    );
    const requests = recordSessionRequests(page);
    await page.goto('/console');
    // A failed check shows the sign-in form: signing in then says what is wrong.
    await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 15_000 });
    assert.equal(requests.length, 4, 'the first attempt and 3 retries');
    const gaps = requests.slice(1).map((time, i) => time - requests[i]!);
    for (const [i, expected] of [1_000, 2_000, 4_000].entries()) {
      assert.ok(gaps[i]! >= expected - 100, `retry ${i + 1} came ${gaps[i]} ms after the attempt before`);
    }
    await sleep(3_000);
    assert.equal(requests.length, 4, 'nothing more once the retries are used up');
    recorded.assertClean('5xx on the session');
  });
});
