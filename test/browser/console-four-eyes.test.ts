import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { consoleGet, consolePost, newOperator, type TestOperator } from '../operators/operator-kit.js';
import { adminPost, partnerRecord } from '../support/admin.js';
import { useApp } from '../support/app.js';
import { assertAccessible, launchBrowser, type RecordedPage, screenshot } from '../support/browser.js';
import { newPartner } from '../support/partners.js';
import { adminDocumentUrl, adminPartnerUrl } from '../support/paths.js';
import { assertLabelsInNames, openConsoleAs } from './console-helpers.js';

/*
 * Four eyes in the console (issue 31): one admin proposes a suspension, the page says it awaits
 * another admin and offers its proposer only Withdraw; a second admin sees who proposed it and
 * confirms it from the keyboard, and the partner is suspended.
 */
describe('console: four eyes', () => {
  let browser: Browser;
  const pages: RecordedPage[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    for (const recorded of pages) await recorded.close();
    await browser?.close();
  });
  const suite = useApp('sqlite', { env: { REQUIRE_FOUR_EYES: 'true' } });

  const openConsole = (operator: TestOperator, path: string): Promise<RecordedPage> =>
    openConsoleAs(browser, suite.t.url, operator.session, path, pages);

  it('lets one admin propose a suspension and another confirm it: the partner is suspended', async () => {
    const first = await newOperator(suite.t, 'admin');
    const second = await newOperator(suite.t, 'admin');
    // An active partner under four eyes: the API key proposes the approval, the second admin confirms.
    const partner = await newPartner(suite, 'submitted', { business_name: 'Golf Payments Ltd' });
    for (const document of (await partnerRecord(suite.t, partner.companyId)).documents) {
      if (!document.current || document.status !== 'pending_review') continue;
      const approved = await adminPost(suite.t, adminDocumentUrl(partner.companyId, document.id, 'approve'));
      assert.equal(approved.status, 200, approved.text);
    }
    const approval = await adminPost(suite.t, adminPartnerUrl(partner.companyId, 'approve'));
    assert.equal(approval.status, 202, approval.text);
    const confirmed = await consolePost(
      suite.t,
      second.session,
      `${adminPartnerUrl(partner.companyId).replace(/partners\/\d+$/, '')}proposals/${approval.body.data.id}/confirm`,
    );
    assert.equal(confirmed.status, 200, confirmed.text);

    const proposer = await openConsole(first, `/console/partners/${partner.companyId}`);
    await proposer.page.getByRole('heading', { level: 1, name: 'Golf Payments Ltd' }).waitFor();
    await proposer.page.getByRole('button', { name: 'Suspend partner' }).click();
    const dialog = proposer.page.getByRole('alertdialog', { name: 'Suspend the partner?' });
    await dialog
      .getByRole('textbox', { name: 'Reason for suspending' })
      .fill('Your account is under review.');
    await dialog.getByRole('button', { name: 'Suspend partner' }).click();
    await proposer.page.getByText('Suspension proposed: another admin must confirm it.').waitFor();
    const mine = proposer.page.getByRole('region', { name: 'Suspension awaiting a second admin' });
    await mine.getByText(`Suspension proposed by ${first.name} (you)`).waitFor();
    await mine.getByRole('button', { name: 'Withdraw suspension' }).waitFor();
    assert.equal(await mine.getByRole('button', { name: /^Confirm/ }).count(), 0, 'no self-confirmation');
    assert.equal(await proposer.page.getByRole('button', { name: 'Suspend partner' }).count(), 0);
    assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'active');
    await assertAccessible(proposer.page, 'a suspension proposed, seen by its proposer');

    const checker = await openConsole(second, `/console/partners/${partner.companyId}`);
    const theirs = checker.page.getByRole('region', { name: 'Suspension awaiting a second admin' });
    await theirs.getByText('Reason for the partner: Your account is under review.').waitFor();
    await theirs.getByRole('button', { name: 'Decline suspension' }).waitFor();
    assert.equal(await theirs.getByRole('button', { name: 'Withdraw suspension' }).count(), 0);
    await assertAccessible(checker.page, 'a suspension proposed, seen by another admin');
    await assertLabelsInNames(checker.page, 'a suspension proposed');
    await screenshot(checker.page, 'console-four-eyes-confirm-1280');

    const confirm = theirs.getByRole('button', { name: 'Confirm suspension' });
    await confirm.focus();
    await checker.page.keyboard.press('Enter');
    await checker.page.getByText('The partner is suspended: it keeps the sandbox').waitFor();
    assert.equal(await theirs.count(), 0, 'the proposal is gone once confirmed');
    await checker.page.getByRole('button', { name: 'Reinstate partner' }).waitFor();
    assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'suspended');

    // The first admin proposes reinstating it; the second declines from the keyboard, saying why.
    const reinstatement = await consolePost(
      suite.t,
      first.session,
      adminPartnerUrl(partner.companyId, 'reinstate'),
    );
    assert.equal(reinstatement.status, 202, reinstatement.text);
    await checker.page.reload();
    const proposed = checker.page.getByRole('region', { name: 'Reinstatement awaiting a second admin' });
    await proposed.getByRole('button', { name: 'Decline reinstatement' }).focus();
    await checker.page.keyboard.press('Enter');
    const declineDialog = checker.page.getByRole('alertdialog', { name: 'Decline the reinstatement?' });
    const why = declineDialog.getByRole('textbox', { name: 'Why (optional)' });
    await why.waitFor();
    assert.ok(
      await why.evaluate((element) => element === element.ownerDocument.activeElement),
      'the reason has focus',
    );
    await checker.page.keyboard.type('The investigation is still open.');
    await assertAccessible(checker.page, 'declining a proposal');
    await checker.page.keyboard.press('Tab');
    await checker.page.keyboard.press('Tab');
    await checker.page.keyboard.press('Enter');
    await proposed.waitFor({ state: 'detached' });
    const settled = await consoleGet(
      suite.t,
      second.session,
      `${adminPartnerUrl(partner.companyId).replace(/partners\/\d+$/, '')}proposals/${reinstatement.body.data.id}`,
    );
    assert.equal(settled.body.data.status, 'declined', settled.text);
    assert.equal(settled.body.data.decline_reason, 'The investigation is still open.');
    assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'suspended');
  });
});
