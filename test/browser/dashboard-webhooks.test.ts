import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { launchBrowser } from '../support/browser.js';
import { customerBody } from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { CREATE_ACCOUNT } from '../support/paths.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { setEndpoint, verifiedPayload } from '../support/webhooks.js';
import {
  assertNoOverflow,
  checkPage,
  choose,
  type DashboardPage,
  focused,
  openDashboard,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * Inspecting webhooks in /dashboard: the test-event button with the endpoint's answer, an event's page
 * (its payload as delivered, its delivery status and next retry, every attempt with the receiver's
 * answer) and the events list filtered by delivery status, whose event names are links to that page.
 */
describe('dashboard: webhook test events, event pages and the failed filter', () => {
  // Retries far off, so a failed automatic attempt leaves its event pending with a next retry to show.
  const suite = useApp('sqlite', { env: { WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '600000' } });
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'active'>;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.start();
    browser = await launchBrowser();
    partner = await newPartner(suite, 'active');
    await setEndpoint(suite.t.api, partner.token, receiver);
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    await recorded.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.t.url });
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    recorded?.assertClean('webhook pages');
    await recorded?.close();
    await browser?.close();
    await receiver.stop();
  });

  it("sends a test event from the webhooks page, shows the endpoint's answer, and opens the event with its payload as delivered", async () => {
    receiver.reply = (_delivery, response) => {
      response.writeHead(418, { 'content-type': 'text/plain' });
      response.end('teapot: no coffee here');
    };
    await page.goto('/dashboard/developers/webhooks');
    await page.getByRole('heading', { level: 2, name: 'Endpoint (sandbox)' }).waitFor();
    const button = page.getByRole('button', { name: 'Send test event' });
    await button.focus();
    await page.keyboard.press('Enter');
    const outcome = page.locator('.webhooks__test-outcome');
    await outcome.getByText('Your endpoint did not accept the test event.').waitFor();
    await outcome.getByText('Failed · HTTP 418').waitFor();
    await outcome.getByText('teapot: no coffee here').waitFor();
    assert.equal(receiver.received.length, 1);
    const delivered = receiver.received[0]!;
    assert.equal(verifiedPayload(delivered).type, 'webhook.test');
    // The delivery log shows the same attempt, with the answer's start.
    await page.getByRole('button', { name: 'Refresh' }).click();
    const logged = page.getByRole('row').filter({ hasText: 'Failed · HTTP 418' });
    await logged.getByText('teapot: no coffee here').waitFor();
    await checkPage(page, 'webhooks-test-event-1280');

    await outcome.getByRole('link', { name: 'View the test event' }).click();
    await page.waitForURL(`**/dashboard/developers/events/${delivered.id}`);
    await page.getByRole('heading', { level: 2, name: 'Test event' }).waitFor();
    const payload = page.getByRole('region', { name: 'Payload' });
    const shown = await payload.locator('pre').innerText();
    assert.deepEqual(JSON.parse(shown), JSON.parse(delivered.body), 'the payload as delivered');
    assert.match(shown, /\n {2}"type": "webhook\.test",\n/, 'pretty-printed');
    await page.getByRole('button', { name: 'Copy payload' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), shown);
    const details = page.locator('.detail-list');
    await details.getByText('Failed', { exact: true }).waitFor();
    await details.getByText('None scheduled').waitFor();
    const attempts = page.getByRole('grid', { name: 'Delivery attempts of this event' });
    const attempt = attempts.getByRole('row').filter({ hasText: '#1' });
    await attempt.getByText('Failed · HTTP 418').waitFor();
    await attempt.getByText('teapot: no coffee here').waitFor();
    assert.equal(await page.getByText(delivered.signature.slice(3)).count(), 0, 'no signature shown');
    await checkPage(page, 'event-1280');
  });

  it('filters the events by delivery status, and each event name is a link to its page, by keyboard too', async () => {
    receiver.reply = undefined;
    receiver.respond = () => 500;
    const created = await suite.t.api.post(
      CREATE_ACCOUNT,
      customerBody({ first_name: 'Pending', last_name: 'Retry' }),
      { token: partner.token },
    );
    assert.equal(created.status, 201, created.text);
    await receiver.waitFor((deliveries) => deliveries.some((delivery) => delivery.body.includes('Pending')));

    await page.goto('/dashboard/developers/events');
    await page.getByRole('heading', { level: 2, name: 'Events' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Account created' }).first().waitFor();

    await choose(page, /Delivery status/, 'Failed');
    await page.waitForURL(/delivery=failed/);
    await page.getByRole('row').filter({ hasText: 'Test event' }).waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: 'Account created' }).count(), 0);
    await checkPage(page, 'events-failed-1280');

    await choose(page, /Delivery status/, 'Pending');
    await page.waitForURL(/delivery=pending/);
    const row = page
      .getByRole('row')
      .filter({ hasText: `${created.body.data.account_number} · Pending Retry` });
    await row.waitFor();
    assert.equal(await page.getByRole('row').filter({ hasText: 'Test event' }).count(), 0);
    const eventId = (await row.locator('code').innerText()).trim();
    const link = row.getByRole('link', { name: 'Account created' });
    assert.ok((await link.getAttribute('href'))?.endsWith(`/dashboard/developers/events/${eventId}`));
    await row.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(page), 'link "Account created"');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/dashboard/developers/events/${eventId}`);
    await page.getByRole('heading', { level: 2, name: 'Account created' }).waitFor();
    const details = page.locator('.detail-list');
    await details.getByText('Pending', { exact: true }).waitFor();
    assert.equal(
      await details.getByText('None scheduled').count(),
      0,
      'a pending event shows its next retry',
    );
    const nextRetry = details.locator('.detail-list__item').filter({ hasText: 'Next retry' }).locator('time');
    const due = Date.parse((await nextRetry.getAttribute('datetime')) ?? '');
    const api = await suite.t.api.get(`/baas/api/v1/services/events/${eventId}`, { token: partner.token });
    assert.equal(due, Date.parse(api.body.data.delivery.next_attempt_at));
    await page
      .getByRole('grid', { name: 'Delivery attempts of this event' })
      .getByRole('row')
      .filter({ hasText: 'Failed · HTTP 500' })
      .waitFor();
  });

  it('fits an event page in 375 px', async () => {
    const narrow = await openDashboard(browser, suite.t.url, { width: 375 });
    try {
      await signInThroughForm(narrow.page, partner);
      await narrow.page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
      await narrow.page.goto(`/dashboard/developers/events/${receiver.received[0]!.id}`);
      await narrow.page.getByRole('heading', { level: 2, name: 'Test event' }).waitFor();
      await narrow.page.getByText('teapot: no coffee here').waitFor();
      await assertNoOverflow(narrow.page, 'event page');
      await checkPage(narrow.page, 'event-375');
      narrow.assertClean('event page at 375 px');
    } finally {
      await narrow.close();
    }
  });
});
