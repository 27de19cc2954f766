import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminPost, approvePartner } from '../support/admin.js';
import { useApp } from '../support/app.js';
import { dateField, fillDate, launchBrowser, segmentOrder } from '../support/browser.js';
import { completeOnboarding, profileOf } from '../support/onboarding.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { adminPartnerUrl } from '../support/paths.js';
import { checkPage, type DashboardPage, openDashboard, signInThroughForm } from './dashboard-helpers.js';

/*
 * The dashboard follows the operator's decisions without a reload: while the application is under
 * review the profile is read again every 5 s, and on window focus at any time. The steps say what
 * the partner has done (uploaded, submitted), and a suspension says so with its reason. The
 * operator acts through the admin API, as the console would.
 */
describe('dashboard: onboarding states follow the operator without a reload', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'sandbox'>;

  before(async () => {
    browser = await launchBrowser();
    partner = await newPartner(suite, 'sandbox');
    // Profile, representative and every document, not submitted.
    await completeOnboarding(suite.t, partner.token);
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    recorded.context.setDefaultTimeout(10_000);
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    recorded?.assertClean('onboarding states');
    await recorded?.close();
    await browser?.close();
  });

  /** Set in the page: still there later means the page was not reloaded. */
  const markPage = () => page.evaluate('window.__notReloaded = true');
  const assertNotReloaded = async () =>
    assert.equal(await page.evaluate('window.__notReloaded'), true, 'the page was not reloaded');
  const progress = () => page.locator('.onboarding-progress__count');

  it('before submission: documents are "Uploaded", not waiting for review, and three of four steps are done', async () => {
    await page.getByRole('link', { name: 'Onboarding', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Onboarding' }).waitFor();
    const documents = page.locator('#documents');
    await documents.getByText('Uploaded', { exact: true }).first().waitFor();
    assert.equal(await documents.getByText('Waiting for review', { exact: true }).count(), 0);
    assert.equal(await progress().innerText(), '3 of 4 steps done');
    await checkPage(page, 'onboarding-uploaded-not-submitted-1280');
  });

  it('downloads an uploaded document, adds https:// to a bare website, and spells out the date of birth in the locale', async () => {
    const memart = page
      .locator('#documents')
      .getByRole('listitem')
      .filter({ hasText: 'Memorandum and articles' });
    const saving = page.waitForEvent('download');
    await memart.getByRole('button', { name: 'Download Memorandum and articles (MEMART)' }).click();
    const download = await saving;
    assert.match(download.suggestedFilename(), /^memart-[0-9a-f-]{36}\.pdf$/);
    const saved = await download.path();
    assert.equal(readFileSync(saved).subarray(0, 5).toString(), '%PDF-');
    await memart
      .getByRole('status')
      .filter({ hasText: `Saved ${download.suggestedFilename()}.` })
      .waitFor();

    const profile = page.locator('#business-profile');
    await profile.getByLabel('Registered address').fill('12 Marina, Lagos');
    const website = profile.getByLabel('Website (optional)');
    await website.fill('acme.ng');
    await website.blur();
    assert.equal(await website.inputValue(), 'https://acme.ng', 'https:// added on blur');
    // Enter in the field submits without a blur: the address is completed on submit too.
    await website.fill('shop.acme.ng');
    await website.press('Enter');
    await profile.getByText('Business profile saved.').waitFor();
    assert.equal(await website.inputValue(), 'https://shop.acme.ng');
    assert.equal((await profileOf(suite.t, partner.token)).website, 'https://shop.acme.ng');

    const representative = page.locator('#representative');
    await representative.getByRole('button', { name: 'Update representative' }).click();
    // The date field's segments follow the page's locale (month first in en-US, day first in
    // en-GB), which Chromium's own date input does not; the day is also spelled out beside it.
    const dob = dateField(representative, 'Date of birth');
    await fillDate(dob, '1985-04-12');
    assert.deepEqual(await segmentOrder(dob), ['month', 'day', 'year']);
    assert.equal((await dob.innerText()).replace(/[^\d/]/g, ''), '04/12/1985');
    await representative.getByText('April 12, 1985', { exact: true }).waitFor();
    await checkPage(page, 'onboarding-representative-date-en-US-1280');

    const british = await openDashboard(browser, suite.t.url, { locale: 'en-GB' });
    try {
      await signInThroughForm(british.page, partner);
      await british.page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
      await british.page.goto('/dashboard/onboarding');
      const theirs = british.page.locator('#representative');
      await theirs.getByRole('button', { name: 'Update representative' }).click();
      const theirDob = dateField(theirs, 'Date of birth');
      await fillDate(theirDob, '1985-04-12');
      assert.deepEqual(await segmentOrder(theirDob), ['day', 'month', 'year']);
      assert.equal((await theirDob.innerText()).replace(/[^\d/]/g, ''), '12/04/1985');
      await theirs.getByText('12 April 1985', { exact: true }).waitFor();
      const provided = await british.page.locator('.document-row__meta').first().innerText();
      assert.match(provided, /^Provided \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/, provided);
      british.assertClean('onboarding in en-GB');
    } finally {
      await british.close();
    }
  });

  it('under review: all four steps are done; the approval shows within seconds, without a reload', async () => {
    await markPage();
    const submit = page.locator('#submit');
    await submit.getByRole('button', { name: 'Submit application' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Submit your application?' });
    await confirm.getByRole('button', { name: 'Submit application' }).click();
    await submit.getByText('Your application is under review.').waitFor();
    assert.equal(await progress().innerText(), '4 of 4 steps done: waiting for our review');
    await page.locator('#documents').getByText('Waiting for review', { exact: true }).first().waitFor();
    await checkPage(page, 'onboarding-under-review-1280');

    await approvePartner(suite.t, partner.companyId);
    const started = Date.now();
    // The 5 s poll while under review, with room for a loaded machine.
    await submit.getByText('Your application is approved.').waitFor({ timeout: 15_000 });
    assert.ok(Date.now() - started < 15_000);
    assert.equal(await progress().innerText(), '4 of 4 steps done');
    assert.equal(await page.getByRole('switch', { name: 'Live mode' }).isDisabled(), false, 'live opens');
    await assertNotReloaded();
  });

  it('a suspension shows on window focus with its reason, instead of "opens once approved"; reinstated, it goes', async () => {
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
    const reason = 'Unusual chargeback volume: send us your last three months of disputes.';
    const suspended = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'suspend'), { reason });
    assert.equal(suspended.status, 200, suspended.text);

    // No poll runs while active: the window's focus reads the profile again.
    await page.evaluate('window.dispatchEvent(new Event("focus"))');
    const warning = page.getByRole('alert').filter({ hasText: 'Your live access is suspended.' });
    await warning.waitFor();
    await warning.getByText(reason).waitFor();
    assert.equal(await page.getByText('Live mode opens once your onboarding is approved.').count(), 0);
    assert.equal(await page.getByText('Live opens once your onboarding is approved.').count(), 0);
    await page.getByText('Live is suspended by the operator.').waitFor();
    await checkPage(page, 'overview-suspended-1280');

    const reinstated = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'reinstate'));
    assert.equal(reinstated.status, 200, reinstated.text);
    await page.evaluate('window.dispatchEvent(new Event("focus"))');
    await warning.waitFor({ state: 'detached' });
    await page.getByText('You are approved: switch on live mode', { exact: false }).waitFor();
    await assertNotReloaded();
  });
});
