import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { newOperator, type TestOperator } from '../operators/operator-kit.js';
import { partnerRecord } from '../support/admin.js';
import { useApp } from '../support/app.js';
import { assertAccessible, launchBrowser, type RecordedPage, screenshot } from '../support/browser.js';
import { profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { openConsoleAs } from './console-helpers.js';

/*
 * Issue 31's compliance controls in the console: a suspension's internal note is typed beside the
 * reason, shown to operators on the record and never to the partner; a reviewer claims a partner,
 * the queue shows who works on it, and a second reviewer cannot take it.
 */
describe('console: internal notes and assignment', () => {
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

  const openConsole = (operator: TestOperator, path: string): Promise<RecordedPage> =>
    openConsoleAs(browser, suite.t.url, operator.session, path, pages);

  it('suspends with a reason and an internal note: the record shows both to operators, the partner only the reason', async () => {
    const admin = await newOperator(suite.t, 'admin');
    const partner = await newPartner(suite, 'active', { business_name: 'Echo Payments Ltd' });
    const { page } = await openConsole(admin, `/console/partners/${partner.companyId}`);
    await page.getByRole('heading', { level: 1, name: 'Echo Payments Ltd' }).waitFor();
    await page.getByRole('button', { name: 'Suspend partner' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Suspend the partner?' });
    await dialog
      .getByRole('textbox', { name: 'Reason for suspending' })
      .fill('Your account is under review.');
    await dialog
      .getByRole('textbox', { name: 'Internal note (optional)' })
      .fill('STR filed after unusual inbound volume.');
    await assertAccessible(page, 'suspend dialog with an internal note');
    await screenshot(page, 'console-suspend-internal-note-1280');
    await dialog.getByRole('button', { name: 'Suspend partner' }).click();
    await page.getByText('The partner was suspended.').waitFor();
    // On the decision panel, and in the audit trail below it (both for operators only).
    await page
      .getByRole('paragraph')
      .filter({ hasText: 'Internal note (operators only): STR filed after unusual inbound volume.' })
      .waitFor();

    const record = await partnerRecord(suite.t, partner.companyId);
    assert.equal(record.internal_note, 'STR filed after unusual inbound volume.');
    const profile = await profileOf(suite.t, partner.token!);
    assert.equal(profile.review_notes, 'Your account is under review.');
    assert.ok(!JSON.stringify(profile).includes('STR filed'), 'the partner never sees the note');
  });

  it('lets a reviewer claim a partner; the queue names them, and another reviewer is not offered it', async () => {
    const first = await newOperator(suite.t, 'reviewer');
    const second = await newOperator(suite.t, 'reviewer');
    const partner = await newPartner(suite, 'submitted', { business_name: 'Foxtrot Wallet Ltd' });

    const { page } = await openConsole(first, `/console/partners/${partner.companyId}`);
    await page.getByRole('heading', { level: 1, name: 'Foxtrot Wallet Ltd' }).waitFor();
    await page.getByText('Assigned to: nobody').waitFor();
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText(`Assigned to: ${first.name} (you)`).waitFor();
    await page.getByRole('button', { name: 'Let go' }).waitFor();
    await assertAccessible(page, 'partner claimed');
    assert.equal((await partnerRecord(suite.t, partner.companyId)).assigned_to.id, first.id);

    await page.goto('/console/review');
    const row = page
      .getByRole('table', { name: 'Partners' })
      .getByRole('row')
      .filter({ hasText: 'Foxtrot Wallet Ltd' });
    await row.getByText(first.name).waitFor();
    await screenshot(page, 'console-queue-assigned-1280');

    const other = await openConsole(second, `/console/partners/${partner.companyId}`);
    await other.page.getByText(`Assigned to: ${first.name}`).waitFor();
    assert.equal(await other.page.getByRole('button', { name: /^(Claim|Take over|Let go)$/ }).count(), 0);
  });
});
