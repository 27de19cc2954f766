import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { type NewPageOptions, newPage, type RecordedPage } from '../support/browser.js';

/**
 * A console page signed in as the operator (its session cookie), opened at `path`; the page is added
 * to `pages` for the file's after() hook to close.
 */
export async function openConsoleAs(
  browser: Browser,
  baseUrl: string,
  session: { cookieName: string; token: string },
  path: string,
  pages: RecordedPage[],
  options: Pick<NewPageOptions, 'handledStatuses' | 'width'> = {},
): Promise<RecordedPage> {
  const recorded = await newPage(browser, baseUrl, { handledStatuses: [401, 409, 422], ...options });
  recorded.context.setDefaultTimeout(10_000);
  pages.push(recorded);
  await recorded.context.addCookies([{ name: session.cookieName, value: session.token, url: baseUrl }]);
  await recorded.page.goto(path);
  return recorded;
}

/**
 * WCAG 2.5.3 label in name: every control of the page whose aria-label replaces its visible text
 * (a button or link) has a name that contains that text, word for word, so a person who says
 * what they see ("click Reset second factor") reaches it. Compared without case and with runs of
 * white space as one space; nothing else is dropped (axe's rule drops punctuation, and passed
 * "Reset second factor…" named "Reset second factor of Tunde Bello").
 */
export async function assertLabelsInNames(page: Page, what: string): Promise<void> {
  // Run in the page (the tests' types have no DOM: what is used is described by hand).
  const mismatches = await page.evaluate(() => {
    type Element = { getAttribute(name: string): string | null; innerText: string };
    const doc = globalThis as unknown as {
      document: { querySelectorAll(selector: string): ArrayLike<Element> };
    };
    // No named function inside: tsx would wrap it in a helper the page lacks.
    const found: string[] = [];
    for (const element of Array.from(
      doc.document.querySelectorAll('button[aria-label], a[aria-label], [role="button"][aria-label]'),
    )) {
      const visible = element.innerText.replace(/\s+/g, ' ').trim().toLowerCase();
      const name = (element.getAttribute('aria-label') ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
      if (visible !== '' && !name.includes(visible)) found.push(`"${element.innerText}" named "${name}"`);
    }
    return found;
  });
  assert.deepEqual(mismatches, [], `${what}: a visible label missing from the accessible name`);
}
