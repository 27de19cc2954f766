import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { type ConsoleSession, newOperator } from '../operators/operator-kit.js';
import { useApp } from '../support/app.js';
import { assertAccessible, launchBrowser, type RecordedPage, screenshot } from '../support/browser.js';
import { completeOnboarding, postDocument, submit } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { pdfWith } from '../support/pdf.js';
import { assertLabelsInNames, openConsoleAs } from './console-helpers.js';

/*
 * The review tools of issue 30 in the console: the queue's rows are links (a new tab opens the
 * partner), searched by name or e-mail and ordered by waiting time; Approve application waits,
 * saying why, for the documents nobody decided; a refused decision's error goes once the record
 * changes; an upload superseded before review is "Superseded"; the preview zooms and rotates, by
 * mouse and keyboard.
 */

/** Polls `check` until it holds (10 s at most). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The business names of the queue's rows, top to bottom. */
async function queueNames(page: Page): Promise<string[]> {
  return page.getByRole('table', { name: 'Partners' }).locator('tbody .review-queue__link').allInnerTexts();
}

describe('console: review tools', () => {
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

  const partners: Record<string, { companyId: number; email: string; token: string }> = {};
  let admin: ConsoleSession;

  before(async () => {
    // Submitted a minute apart: Alpha has waited longest.
    for (const name of ['Alpha Pay Ltd', 'Bravo Remit Ltd', 'Charlie Wallet Ltd']) {
      const partner = await newPartner(suite, 'submitted', { business_name: name });
      partners[name] = { companyId: partner.companyId, email: partner.email, token: partner.token! };
      suite.t.clock.advance(60_000);
    }
    // Delta: the CAC certificate uploaded twice before submitting (the first superseded unreviewed),
    // a signed MEMART that draws, and a TIN certificate beyond the checklist.
    const delta = await newPartner(suite, 'signed-in', { business_name: 'Delta Trade Ltd' });
    await completeOnboarding(suite.t, delta.token!);
    const uploads: Array<[string, Buffer]> = [
      ['cac_certificate', pdfWith(['CAC certificate, second scan'])],
      ['memart', pdfWith(['Signed MEMART of Delta Trade Ltd'])],
      ['tin_certificate', pdfWith(['TIN certificate'])],
    ];
    for (const [documentType, bytes] of uploads) {
      const upload = await postDocument(
        suite.t,
        delta.token!,
        { document_type: documentType },
        { file: { bytes, name: `${documentType}.pdf`, type: 'application/pdf' } },
      );
      assert.equal(upload.status, 201, upload.text);
    }
    assert.equal((await submit(suite.t, delta.token!)).status, 200);
    partners['Delta Trade Ltd'] = { companyId: delta.companyId, email: delta.email, token: delta.token! };
    admin = (await newOperator(suite.t, 'admin')).session;
  });

  const openConsole = (path: string): Promise<RecordedPage> =>
    openConsoleAs(browser, suite.t.url, admin, path, pages);

  it('lists the queue as links that open in a new tab, searched by name or e-mail, ordered by waiting time', async () => {
    const recorded = await openConsole('/console/review');
    const { page, context } = recorded;
    const table = page.getByRole('table', { name: 'Partners' });
    await table.getByRole('link', { name: 'Delta Trade Ltd' }).waitFor();
    assert.deepEqual(await queueNames(page), [
      'Alpha Pay Ltd',
      'Bravo Remit Ltd',
      'Charlie Wallet Ltd',
      'Delta Trade Ltd',
    ]);
    const bravo = table.getByRole('link', { name: 'Bravo Remit Ltd' });
    assert.equal(
      await bravo.getAttribute('href'),
      `/console/partners/${partners['Bravo Remit Ltd']!.companyId}`,
    );
    await assertAccessible(page, 'review queue');
    await assertLabelsInNames(page, 'review queue');
    await screenshot(page, 'console-review-queue-links-1280');

    // Ctrl+click opens the partner in a new tab, and this one stays on the queue.
    const [tab] = await Promise.all([context.waitForEvent('page'), bravo.click({ modifiers: ['Control'] })]);
    await tab.waitForLoadState();
    assert.equal(new URL(tab.url()).pathname, `/console/partners/${partners['Bravo Remit Ltd']!.companyId}`);
    await tab.getByRole('heading', { level: 1, name: 'Bravo Remit Ltd' }).waitFor();
    await tab.close();
    assert.equal(new URL(page.url()).pathname, '/console/review');

    // A click anywhere on a row opens its partner.
    const status = await table
      .getByRole('row', { name: /Charlie Wallet Ltd/ })
      .getByRole('cell')
      .nth(1)
      .boundingBox();
    assert.ok(status);
    await page.mouse.click(status.x + status.width / 2, status.y + status.height / 2);
    await page.getByRole('heading', { level: 1, name: 'Charlie Wallet Ltd' }).waitFor();
    await page.goBack();

    // Shortest waiting first, kept in the address.
    await page.getByRole('button', { name: /Order$/ }).click();
    await page.getByRole('option', { name: 'Shortest waiting first' }).click();
    await page.waitForURL(/order=shortest-waiting/);
    await eventually('newest first', async () => (await queueNames(page))[0] === 'Delta Trade Ltd');
    assert.deepEqual(await queueNames(page), [
      'Delta Trade Ltd',
      'Charlie Wallet Ltd',
      'Bravo Remit Ltd',
      'Alpha Pay Ltd',
    ]);

    // Search by name, then by e-mail address, then something no partner has.
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill('bravo');
    await eventually('one match', async () => (await queueNames(page)).join() === 'Bravo Remit Ltd');
    await page.getByText('1 partner matching the search.').waitFor();
    await search.fill(partners['Alpha Pay Ltd']!.email);
    await eventually('the e-mail matches', async () => (await queueNames(page)).join() === 'Alpha Pay Ltd');
    assert.match(page.url(), /q=/);
    await search.fill('no such partner');
    await page.getByText('No partner matches the search.').waitFor();
    await assertAccessible(page, 'review queue, no match');
    await search.fill('');
    await eventually('all four again', async () => (await queueNames(page)).length === 4);

    // The keyboard: Tab reaches each row's link, Enter opens it.
    await table.getByRole('link', { name: 'Alpha Pay Ltd' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Alpha Pay Ltd' }).waitFor();
    recorded.assertClean('review queue');
  });

  it('waits to approve until the documents are decided, says why, clears a refused decision once the record changes, and shows a superseded upload as Superseded', async () => {
    const delta = partners['Delta Trade Ltd']!;
    const recorded = await openConsole(`/console/partners/${delta.companyId}`);
    const { page } = recorded;
    await page.getByRole('heading', { level: 1, name: 'Delta Trade Ltd' }).waitFor();

    const approve = page.getByRole('button', { name: 'Approve application…' });
    const reason = page.locator('.decision-panel__blocked');
    assert.equal(await approve.isDisabled(), true);
    assert.match(
      await reason.innerText(),
      /^Approving waits for your decision on (?=.*CAC certificate)(?=.*Memorandum and articles \(MEMART\))(?=.*Representative's ID).*\.$/,
    );
    assert.equal(await approve.getAttribute('aria-describedby'), await reason.getAttribute('id'));

    // The first CAC and MEMART scans, replaced before anyone looked: Superseded, not Pending review.
    await page.getByRole('button', { name: 'Earlier uploads (2)' }).click();
    const earlier = page.locator('.earlier-documents li');
    await earlier.first().waitFor();
    assert.equal(await earlier.getByText('Superseded', { exact: true }).count(), 2);
    assert.equal(await earlier.getByText('Pending review').count(), 0);
    await assertAccessible(page, 'partner page, approval waiting');
    await assertLabelsInNames(page, 'partner page');
    await screenshot(page, 'console-review-approve-waiting-1280');

    const item = (title: string): Locator =>
      page.locator('.document').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
    await page.getByRole('button', { name: 'Approve CAC certificate' }).click();
    await item('CAC certificate').getByText('Approved', { exact: true }).waitFor();
    await page.getByRole('button', { name: "Approve Representative's ID" }).click();
    await item("Representative's ID").getByText('Approved', { exact: true }).waitFor();
    assert.equal(await approve.isDisabled(), true);
    assert.equal(
      await reason.innerText(),
      'Approving waits for your decision on Memorandum and articles (MEMART).',
    );

    // Rejected is decided: the server refuses the approval, which the panel says.
    await page.getByRole('button', { name: 'Reject Memorandum and articles (MEMART)' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Reject Memorandum and articles (MEMART)?' });
    await dialog.getByLabel('Reason for rejecting').fill('Unsigned.');
    await dialog.getByRole('button', { name: 'Reject document' }).click();
    await item('Memorandum and articles (MEMART)').getByText('Rejected', { exact: true }).waitFor();
    await eventually('approve enabled', async () => !(await approve.isDisabled()));
    assert.equal(await reason.count(), 0);
    await approve.click();
    await page
      .getByRole('alertdialog', { name: 'Approve the application?' })
      .getByRole('button', { name: 'Approve application' })
      .click();
    const failure = page.locator('.decision-panel').getByRole('alert');
    await failure.getByText('Approve application failed').waitFor();

    // The record changes (the TIN certificate decided): the refusal no longer describes it and goes.
    await page.getByRole('button', { name: 'Approve TIN certificate' }).click();
    await item('TIN certificate').getByText('Approved', { exact: true }).waitFor();
    await failure.waitFor({ state: 'detached' });
    await assertAccessible(page, 'partner page, refusal gone');
    recorded.assertClean('approval waits');
  });

  it('previews a document larger: zoom in and out, rotate and reset, with the buttons and the keyboard', async () => {
    const delta = partners['Delta Trade Ltd']!;
    const recorded = await openConsole(`/console/partners/${delta.companyId}`);
    const { page } = recorded;
    const memart = page
      .locator('.document')
      .filter({ has: page.getByRole('heading', { name: 'Memorandum and articles (MEMART)', exact: true }) });
    await memart.getByRole('button', { name: 'Show preview of Memorandum and articles (MEMART)' }).click();
    const canvas = memart.getByRole('img', { name: /of Memorandum and articles \(MEMART\)$/ });
    await canvas.waitFor();
    const size = async () => {
      const box = await canvas.boundingBox();
      return { width: Math.round(box?.width ?? 0), height: Math.round(box?.height ?? 0) };
    };
    // Drawn: no longer hidden, nor the 300 × 150 of a canvas nothing was drawn on yet.
    await eventually('drawn', async () => ![0, 300].includes((await size()).width));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const start = await size();
    const controls = memart.getByRole('group', { name: 'View of Memorandum and articles (MEMART)' });
    const state = controls.getByRole('status');
    assert.equal(await state.innerText(), '100%');

    await controls.getByRole('button', { name: 'Zoom in' }).click();
    await state.getByText('150%').waitFor();
    await eventually('wider', async () => (await size()).width > start.width * 1.4);
    await controls.getByRole('button', { name: 'Rotate' }).click();
    await state.getByText('150%, turned 90°').waitFor();
    // A portrait page turned a quarter is wider than high.
    await eventually('turned', async () => {
      const now = await size();
      return now.width > now.height;
    });
    await assertAccessible(page, 'preview zoomed and rotated');
    await screenshot(page, 'console-review-preview-zoomed-1280');
    await controls.getByRole('button', { name: 'Reset view' }).click();
    await state.getByText('100%').waitFor();
    let now = start;
    await eventually('back to the start', async () => {
      now = await size();
      return Math.abs(now.width - start.width) <= 20;
    }).catch(() => assert.deepEqual(now, start, 'the size after Reset view'));

    // The keyboard: the view takes focus; + zooms in, - out, R rotates, 0 resets.
    const view = memart.getByRole('region', { name: /^Preview of Memorandum and articles \(MEMART\)/ });
    await view.focus();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await state.getByText('200%').waitFor();
    await page.keyboard.press('-');
    await state.getByText('150%').waitFor();
    await page.keyboard.press('r');
    await state.getByText('150%, turned 90°').waitFor();
    await page.keyboard.press('0');
    await state.getByText('100%').waitFor();
    // The buttons work from the keyboard too.
    await controls.getByRole('button', { name: 'Zoom out' }).focus();
    await page.keyboard.press('Enter');
    await state.getByText('75%').waitFor();
    recorded.assertClean('preview');
  });
});
