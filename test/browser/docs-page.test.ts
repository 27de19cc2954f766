import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { useApp } from '../support/app.js';
import {
  assertAccessible,
  launchBrowser,
  newPage,
  type RecordedPage,
  screenshot,
} from '../support/browser.js';

/*
 * Issue 30: the API reference at /docs in a real browser. It opens with the partner guide, has no
 * serious or critical axe violation (Swagger UI's own colours and unnamed controls included) and
 * nothing its CSP refuses, and "Try it out" leaves a list's optional filters empty instead of
 * sending their examples.
 */

const LIST_ACCOUNTS = '#operations-Virtual_accounts-listVirtualAccounts';

describe('/docs, the API reference', () => {
  let browser: Browser;
  let docs: RecordedPage;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await docs?.close();
    await browser?.close();
  });
  const suite = useApp('sqlite');

  it('opens with the partner guide, with no serious or critical axe violation and nothing the CSP refuses', async () => {
    // Execute below is sent without credentials: the 401 is the answer it shows.
    docs = await newPage(browser, suite.t.url, { handledStatuses: [401] });
    const { page } = docs;
    await page.goto('/docs');
    await page.locator(LIST_ACCOUNTS).waitFor();
    assert.equal(await page.title(), 'BaaS Partner API reference');
    await page.getByRole('heading', { name: 'Getting started: sandbox to live' }).waitFor();
    await assertAccessible(page, '/docs as it opens');
    docs.assertClean('/docs as it opens');
  });

  it("leaves list accounts' optional filters empty in Try it out, so Execute sends none of them", async () => {
    const { page } = docs;
    const operation = page.locator(LIST_ACCOUNTS);
    await operation.locator('.opblock-summary-control').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const field = (name: string) => operation.locator(`tr[data-param-name="${name}"] input`);
    await field('email').waitFor();
    for (const name of ['cursor', 'email', 'created_from', 'created_to']) {
      assert.equal(await field(name).inputValue(), '', `${name} starts empty`);
    }
    assert.equal(await operation.locator('tr[data-param-name="status"] select').inputValue(), '');
    assert.equal(await field('limit').inputValue(), '20', "the limit's default stays");
    // The example is still shown, in the filter's description.
    assert.match(
      (await operation.locator('tr[data-param-name="email"]').textContent()) ?? '',
      /Example: ada@example\.com/,
    );
    await assertAccessible(page, 'list accounts in Try it out');

    await operation.getByRole('button', { name: 'Execute' }).click();
    const requestUrl = operation.locator('.request-url pre');
    await requestUrl.waitFor();
    assert.equal(
      (await requestUrl.textContent())?.trim(),
      // Parameters with a default (limit, order) are sent with it, as the server would assume it.
      `${suite.t.url}/baas/api/v1/services/virtual-account?limit=20&order=desc`,
    );
    await operation.locator('.live-responses-table .response-col_status').first().waitFor();
    await operation.screenshot({ path: await screenshot(page, 'docs-list-accounts-try-it-out') });
    await assertAccessible(page, 'list accounts with its answer');
    docs.assertClean('list accounts in Try it out');
  });

  it('keeps the Authorize dialog free of serious or critical axe violations', async () => {
    const { page } = docs;
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    await assertAccessible(page, 'the Authorize dialog');
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    docs.assertClean('the Authorize dialog');
  });
});
