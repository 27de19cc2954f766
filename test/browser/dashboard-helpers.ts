import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertAccessible, newPage, type RecordedPage, screenshot } from '../support/browser.js';

/*
 * What the dashboard's browser tests share: a recorded page that tells the browser's own log of
 * refused API requests (a 401 before sign-in, a 422 shown next to its field: answers the page asked
 * for and handles) from errors of the app, and the checks every page gets.
 */

/** Chromium logs every 4xx answer to fetch/XHR as a console error; these are the API's, not the page's. */
const REFUSED_RESOURCE = /^Failed to load resource: the server responded with a status of 4\d\d\b/;

export interface DashboardPage extends RecordedPage {
  /** `METHOD-less url: message` of each 4xx API answer the browser logged. */
  apiRefusals: string[];
  /** Console errors and uncaught exceptions that are not API refusals. */
  appErrors: string[];
}

export async function openDashboard(
  browser: Browser,
  baseUrl: string,
  options: { width?: number; locale?: string } = {},
): Promise<DashboardPage> {
  const recorded = await newPage(browser, baseUrl, options);
  const apiRefusals: string[] = [];
  const appErrors: string[] = [];
  recorded.page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const url = message.location().url;
    const path = url ? new URL(url).pathname : '';
    if (REFUSED_RESOURCE.test(message.text()) && path.startsWith('/baas/api/v1/')) {
      apiRefusals.push(`${path}: ${message.text()}`);
    } else {
      appErrors.push(`console: ${message.text()} (${url})`);
    }
  });
  recorded.page.on('pageerror', (error) => appErrors.push(`uncaught: ${error.message}`));
  return {
    ...recorded,
    apiRefusals,
    appErrors,
    assertClean(what: string) {
      assert.deepEqual(recorded.cspViolations, [], `${what}: the CSP refused something`);
      assert.deepEqual(appErrors, [], `${what}: the page logged errors`);
    },
  };
}

/** axe-core (no serious or critical violation) and a full-page screenshot of the page as it is. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await assertAccessible(page, name);
  // From the top, so sticky parts sit where a reader first sees them.
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, `partner-dashboard-${name}`);
}

/** Nothing is wider than the viewport (no sideways scrolling at 375 px). */
export async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
  if (overflow === 0) return;
  // Names what is too wide: with the page's main column held to the viewport, the elements whose
  // content overflows them. (No named function inside: tsx would wrap it in a helper the page lacks.)
  const culprits = await page
    .locator('main')
    .first()
    .evaluate((main) => {
      type Named = {
        scrollWidth: number;
        clientWidth: number;
        tagName: string;
        className: unknown;
        textContent: string | null;
        style: { width: string; minWidth: string; maxWidth: string };
      };
      const width = (globalThis as unknown as { innerWidth: number }).innerWidth;
      const held = main as unknown as Named & { querySelectorAll(selector: string): ArrayLike<Named> };
      held.style.maxWidth = `${width}px`;
      held.style.minWidth = '0';
      const found: string[] = [];
      for (const element of Array.from(held.querySelectorAll('*'))) {
        if (element.scrollWidth <= element.clientWidth + 1 || element.clientWidth <= 1) continue;
        const text = (element.textContent ?? '').replace(/\s+/g, ' ').slice(0, 50);
        found.push(
          `${element.tagName.toLowerCase()}.${String(element.className)} (${element.scrollWidth} > ${element.clientWidth} px, "${text}")`,
        );
      }
      held.style.maxWidth = '';
      held.style.minWidth = '';
      return found.slice(-6);
    });
  assert.equal(overflow, 0, `${what}: something is wider than the viewport: ${culprits.join('; ')}`);
}

/** Chooses `option` in the React Aria select labelled `label` (a button, then a listbox). */
export async function choose(scope: Page | Locator, label: string | RegExp, option: string): Promise<void> {
  const page = 'page' in scope ? scope.page() : scope;
  await scope.getByRole('button', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Picks a file through the file chooser the button opens (the upload UI's own picker). */
export async function pickFile(
  page: Page,
  button: Locator,
  file: { name: string; mimeType: string; buffer: Buffer },
): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await button.click();
  await (await chooser).setFiles(file);
}

/**
 * Drops a file on a drop zone as a drag from the desktop does: the browser's own drag of a file on
 * disk (DevTools Input.dispatchDragEvent), so the page gets a trusted drop with a real file entry.
 */
export async function dropFile(
  zone: Locator,
  file: { name: string; mimeType: string; buffer: Buffer },
): Promise<void> {
  // The dropped File reads this file when it is uploaded: it stays until the test process ends.
  const filePath = path.join(dropDir(), `${randomUUID()}-${file.name}`);
  writeFileSync(filePath, file.buffer);
  const page = zone.page();
  const session = await page.context().newCDPSession(page);
  try {
    await zone.scrollIntoViewIfNeeded();
    const box = await zone.boundingBox();
    assert.ok(box, 'the drop zone is on screen');
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    const data = { items: [], files: [filePath], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
      await session.send('Input.dispatchDragEvent', { type, x, y, data });
    }
  } finally {
    await session.detach();
  }
}

let dropFolder: string | undefined;
function dropDir(): string {
  if (dropFolder) return dropFolder;
  const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-drop-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  dropFolder = dir;
  return dir;
}

/** The company id of the page's signed-in partner, read with the page's own cookie. */
export async function companyIdOf(page: Page): Promise<number> {
  const response = await page.request.get('/baas/api/v1/client/onboarding/session');
  assert.equal(response.status(), 200, await response.text());
  return ((await response.json()) as { data: { company_id: number } }).data.company_id;
}

/** What has keyboard focus: its role and accessible name, as a screen reader announces it. */
export async function focused(page: Page): Promise<string> {
  const element = page.locator(':focus');
  if ((await element.count()) === 0) return 'nothing';
  const line = (await element.ariaSnapshot()).split('\n')[0] ?? '';
  return /^- (\w+ "[^"]*"(?: \[[^\]]*\])*)/.exec(line)?.[1] ?? line;
}

/** Signs in through the sign-in form (the page is on it, or goes there; wait for a redirect to it first). */
export async function signInThroughForm(
  page: Page,
  account: { email: string; password: string },
): Promise<void> {
  if (!new URL(page.url()).pathname.endsWith('/sign-in')) await page.goto('/dashboard/sign-in');
  await page.getByLabel('E-mail address').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
