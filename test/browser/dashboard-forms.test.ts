import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { launchBrowser } from '../support/browser.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { checkPage, type DashboardPage, openDashboard } from './dashboard-helpers.js';

/*
 * A form's button stays where it is when focus leaves a field: a field's error appears on submit and
 * goes as the field is corrected, never on blur. Pressing the button blurs the field; had its error
 * line appeared or gone then, the button would move from under the pointer and the click would miss.
 * Playwright's click presses and releases where the button was before the press, as a person does.
 */
describe('dashboard: no layout shift on blur, the first click after a corrected error submits', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'sandbox'>;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.start();
    browser = await launchBrowser();
    partner = await newPartner(suite, 'sandbox');
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    recorded.context.setDefaultTimeout(10_000);
  });
  after(async () => {
    recorded?.assertClean('dashboard forms');
    await recorded?.close();
    await browser?.close();
    await receiver.stop();
  });

  /** The button's box on the page (not in the viewport, which scrolls to what gets focus). */
  const boxOf = (button: Locator) =>
    button.evaluate((element) => {
      const rect = (
        element as unknown as {
          getBoundingClientRect(): { left: number; top: number; width: number; height: number };
        }
      ).getBoundingClientRect();
      const view = globalThis as unknown as { scrollX: number; scrollY: number };
      return {
        x: rect.left + view.scrollX,
        y: rect.top + view.scrollY,
        width: rect.width,
        height: rect.height,
      };
    });
  /** Moves focus out of the field as a press elsewhere would, without pressing anything. */
  const blur = (field: Locator) =>
    field.evaluate((element) => (element as unknown as { blur(): void }).blur());

  it('sign-in: leaving a wrong e-mail shows nothing; after a submitted error, the corrected form signs in with one click', async () => {
    await page.goto('/dashboard/sign-in');
    const email = page.getByLabel('E-mail address');
    const password = page.getByLabel('Password');
    const button = page.getByRole('button', { name: 'Sign in' });

    await email.fill('ada@');
    const untouched = await boxOf(button);
    await blur(email);
    assert.equal(await email.getAttribute('aria-invalid'), null, 'no error on blur');
    assert.deepEqual(await boxOf(button), untouched, 'leaving a wrong field moves nothing');

    await password.fill(partner.password);
    await button.click();
    assert.equal(await email.getAttribute('aria-invalid'), 'true', 'the submit shows the error');
    await page.locator('.field__error').first().waitFor();
    await checkPage(page, 'sign-in-field-error-1280');

    await email.fill(partner.email);
    const before = await boxOf(button);
    await blur(email);
    assert.deepEqual(await boxOf(button), before, 'leaving the corrected field moves nothing');
    await email.focus();
    await button.click();
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });

  it('webhook URL: a URL without its scheme is refused on submit; corrected, one click sets the endpoint', async () => {
    await page.goto('/dashboard/developers/webhooks');
    const url = page.getByLabel('Endpoint URL');
    const button = page.getByRole('button', { name: 'Set endpoint' });
    await url.fill('hooks example');
    const untouched = await boxOf(button);
    await blur(url);
    assert.equal(await url.getAttribute('aria-invalid'), null, 'no error on blur');
    assert.deepEqual(await boxOf(button), untouched, 'leaving a wrong field moves nothing');

    await button.click();
    assert.equal(await url.getAttribute('aria-invalid'), 'true', 'the submit shows the error');
    const shifted = await boxOf(button);
    assert.ok(shifted.y > untouched.y, 'the error line is under the field, above the button');

    await url.fill(receiver.url);
    const before = await boxOf(button);
    await blur(url);
    assert.deepEqual(await boxOf(button), before, 'leaving the corrected field moves nothing');
    await url.focus();
    await button.click();
    await page.getByText('Signing secret', { exact: false }).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Set endpoint' }).count(), 0, 'the endpoint is set');
  });
});
