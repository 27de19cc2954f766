import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { adminPost, partnerRecord } from '../support/admin.js';
import { useApp } from '../support/app.js';
import {
  assertAccessible,
  launchBrowser,
  newPage,
  type RecordedPage,
  readsInOrder,
  SCREENSHOT_DIR,
  screenshot,
} from '../support/browser.js';
import { PDF_BYTES, randomPassword, uniqueEmail } from '../support/factories.js';
import { completeOnboarding, postDocument, submit } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { ADMIN_PREFIX, adminDocumentUrl, adminPartnerUrl, ENVIRONMENT } from '../support/paths.js';
import { pdfWith } from '../support/pdf.js';
import { nextTotpStep, totp } from '../support/totp.js';
import { assertLabelsInNames } from './console-helpers.js';

/*
 * The operator console (/console) in a real browser against the real server: set-up from an
 * invitation, sign-in, the review of a partner, operators, the audit log and the session's end.
 * One app and one browser for the file; the tests run in order and build on each other (the admin
 * set up first signs in the rest), as an operator's day would.
 */

const INVITATIONS = `${ADMIN_PREFIX}invitations`;
const SESSION = `${ADMIN_PREFIX}session`;

interface Account {
  email: string;
  password: string;
  name: string;
  secret: string;
  recoveryCodes: string[];
}

/** The path and fragment of a set-up link, to open on the test server whatever PUBLIC_URL says. */
function setupPath(url: string): string {
  const match = /\/console\/setup#token=[A-Za-z0-9_-]{43}$/.exec(url);
  assert.ok(match, `a set-up link expected: ${url}`);
  return match[0];
}

/** What has keyboard focus: its role and accessible name, as a screen reader announces it. */
async function focused(page: Page): Promise<string> {
  const element = page.locator(':focus');
  if ((await element.count()) === 0) return 'nothing';
  const line = (await element.ariaSnapshot()).split('\n')[0] ?? '';
  return /^- (\w+(?: "[^"]*")?)/.exec(line)?.[1] ?? line;
}

/** Focus settles on `expected` (React Aria gives it back a frame after a dialog closes). */
async function focusIs(page: Page, expected: string): Promise<void> {
  let now = '';
  await eventually(`focus on ${expected}`, async () => {
    now = await focused(page);
    return now === expected;
  }).catch(() => assert.equal(now, expected));
}

/** Presses Tab (or Shift+Tab) until what has focus starts with `target`; fails after `max` presses. */
async function tabTo(page: Page, target: string | RegExp, backwards = false, max = 60): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    seen.push(now);
    if (typeof target === 'string' ? now.startsWith(target) : target.test(now)) return;
  }
  assert.fail(`Tab never reached ${String(target)}; focus went through:\n${seen.join('\n')}`);
}

/** Polls `check` until it holds (10 s at most): for what settles after a request, like a filtered list. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the viewport shows (a modal dialog covers the viewport, not the whole page). */
async function viewportShot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled' });
}

/** The page's width fits the viewport: nothing scrolls sideways. */
async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
  assert.equal(overflow, 0, `${what}: something is wider than the viewport`);
}

/** Whether the canvas shows something: a pixel that is not white (a blank page is all white). */
function drawn(canvas: Locator): Promise<boolean> {
  // Run in the page (the tests' types have no DOM: the element is described by hand).
  return canvas.evaluate((element) => {
    const target = element as unknown as {
      width: number;
      height: number;
      getContext(kind: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: number[] };
      };
    };
    if (target.width === 0 || target.height === 0) return false;
    const { data } = target.getContext('2d').getImageData(0, 0, target.width, target.height);
    for (let i = 0; i < data.length; i += 4) {
      if (data[i]! < 200 || data[i + 1]! < 200 || data[i + 2]! < 200) return true;
    }
    return false;
  });
}

/** A page of its own context; a step that waits longer than 10 s has failed (the app answers in ms). */
async function openPage(browser: Browser, baseUrl: string): Promise<RecordedPage> {
  // Answers the console shows a message of its own for (a 401 before sign-in, a refused decision).
  const recorded = await newPage(browser, baseUrl, { handledStatuses: [401, 403, 404, 409, 410, 422, 429] });
  recorded.context.setDefaultTimeout(10_000);
  return recorded;
}

describe('operator console', () => {
  let browser: Browser;
  /** The first admin's browser, signed in from the first test on. */
  let adminPage: RecordedPage;
  let admin: Account;
  let reviewerPage: RecordedPage | undefined;
  let reviewer: Account | undefined;
  /** The partner the admin reviews in the browser. */
  let reviewed: { companyId: number };

  before(async () => {
    browser = await launchBrowser();
  });
  // Registered before the app's hooks, so the browser (and its keep-alive connections) is gone
  // before the server closes.
  after(async () => {
    await reviewerPage?.close();
    await adminPage?.close();
    await browser?.close();
  });
  const suite = useApp('sqlite');

  /** Password, then the authenticator's code of a fresh step, on the sign-in page `page` shows. */
  async function signIn(page: Page, account: Account): Promise<void> {
    await page.getByLabel('E-mail address').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    nextTotpStep(suite.t.clock);
    await code.fill(totp(account.secret, suite.t.clock.now()));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
  }

  /**
   * The set-up from a link in `page`: details (new operators) or the operator's own password (a
   * reset; a wrong one first, which is refused), authenticator, recovery codes.
   */
  async function setUp(
    page: Page,
    link: string,
    details: { name: string; password: string } | { currentPassword: string },
    shots?: string,
  ): Promise<{ secret: string; recoveryCodes: string[] }> {
    await page.goto(link);
    if ('name' in details) {
      await page.getByRole('heading', { level: 1, name: 'Set up your operator account' }).waitFor();
      if (shots) {
        await assertAccessible(page, 'set-up: details');
        await screenshot(page, `${shots}-details-1280`);
      }
      await page.getByLabel('Full name').fill(details.name);
      await page.getByLabel('Password', { exact: true }).fill(details.password);
      await page.getByLabel('Confirm password').fill(details.password);
      await page.getByRole('button', { name: 'Continue' }).click();
    } else {
      await page.getByRole('heading', { level: 1, name: 'Set up a new authenticator' }).waitFor();
      await page.getByLabel('Your password').fill(`${details.currentPassword}?`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('Is not your password.').waitFor();
      if (shots) {
        await assertAccessible(page, 'set-up: reset password refused');
        await screenshot(page, `${shots}-password-refused-1280`);
      }
      // Enter submits: a click right after a correction can miss (issue 30: the error's line goes on blur).
      await page.getByLabel('Your password').fill(details.currentPassword);
      await page.getByLabel('Your password').press('Enter');
    }
    await page.getByRole('heading', { name: 'Connect your authenticator app' }).waitFor();
    const qr = page.getByRole('img', { name: /^QR code to add/ });
    await qr.waitFor();
    // The image decoded (the tests' types have no DOM: the element is described by hand).
    const decoded = await qr.evaluate((image) => {
      const { complete, naturalWidth } = image as unknown as { complete: boolean; naturalWidth: number };
      return complete && naturalWidth > 0;
    });
    assert.equal(decoded, true);
    assert.match(String(await qr.getAttribute('src')), /^data:image\/svg\+xml/);
    const secret = (await page.locator('.authenticator-key__value code').innerText()).replace(/\s/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    if (shots) {
      await assertAccessible(page, 'set-up: authenticator');
      await screenshot(page, `${shots}-authenticator-1280`);
    }
    await page.getByLabel('6-digit code from the app').fill(totp(secret, suite.t.clock.now()));
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    const recoveryCodes = await page
      .getByRole('list', { name: 'Recovery codes' })
      .getByRole('listitem')
      .allInnerTexts();
    assert.equal(recoveryCodes.length, 10);
    if (shots) {
      await assertAccessible(page, 'set-up: recovery codes');
      await screenshot(page, `${shots}-recovery-codes-1280`);
    }
    // Going on needs the confirmation that the codes are saved.
    await page.getByRole('button', { name: 'Continue to the console' }).click();
    await page.getByText('Confirm that you saved your recovery codes').waitFor();
    await page.getByText('I have saved my recovery codes').click();
    assert.ok(await page.getByRole('checkbox', { name: 'I have saved my recovery codes' }).isChecked());
    await page.getByRole('button', { name: 'Continue to the console' }).click();
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    return { secret, recoveryCodes: recoveryCodes.map((code) => code.trim()) };
  }

  /** The console session of a browser context: its anti-forgery token, read as the page reads it. */
  async function csrfOf(page: Page): Promise<string> {
    const response = await page.request.get(SESSION);
    assert.equal(response.status(), 200, await response.text());
    return ((await response.json()) as { data: { csrf_token: string } }).data.csrf_token;
  }

  it('sets up the first admin from an invitation link: QR code and key, the code, recovery codes shown once, signed in', async () => {
    const email = uniqueEmail('admin');
    const invited = await adminPost(suite.t, INVITATIONS, { email, role: 'admin' });
    assert.equal(invited.status, 201, invited.text);
    const password = randomPassword();

    adminPage = await openPage(browser, suite.t.url);
    const { page } = adminPage;
    const setup = await setUp(
      page,
      setupPath(invited.body.data.url as string),
      { name: 'Ngozi Okafor', password },
      'console-setup',
    );
    admin = { email, password, name: 'Ngozi Okafor', ...setup };

    const banner = page.getByRole('banner');
    await banner.getByText('Ngozi Okafor').waitFor();
    await banner.getByText(`Admin · ${email}`).waitFor();
    assert.equal(await page.title(), 'Review queue · Operator console');
    assert.equal(new URL(page.url()).pathname, '/console/review');
    await page.getByText('Nothing is waiting for review.').waitFor();

    // The link was used up: opening it again says so.
    await page.goto(setupPath(invited.body.data.url as string));
    await page.getByRole('heading', { level: 1, name: 'This set-up link cannot be used' }).waitFor();
    await assertAccessible(page, 'set-up: used link');
    await screenshot(page, 'console-setup-used-link-1280');
    adminPage.assertClean('set-up');
  });

  it('reviews a submitted partner: documents one by one, one rejected and uploaded again, then the application approved; the partner goes live', async () => {
    const partner = await newPartner(suite, 'submitted', { business_name: 'Sunrise Remit Ltd' });
    reviewed = { companyId: partner.companyId };
    const { page } = adminPage;
    await page.goto('/console/review');
    const row = page.getByRole('row', { name: /Sunrise Remit Ltd/ });
    await row.waitFor();
    assert.match(await row.innerText(), /Under review/);
    assert.match(await row.innerText(), /Application/);
    assert.match(await row.innerText(), /CAC certificate/);
    await assertAccessible(page, 'review queue');
    await screenshot(page, 'console-review-queue-1280');
    await page.setViewportSize({ width: 375, height: 900 });
    await assertNoOverflow(page, 'review queue at 375 px');
    await screenshot(page, 'console-review-queue-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    await row.getByText('Sunrise Remit Ltd').click();
    await page.getByRole('heading', { level: 1, name: 'Sunrise Remit Ltd' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/partners/${partner.companyId}`);
    const kyc = page.locator('.kyc-result');
    await kyc.getByText('KYC passed').waitFor();
    await page
      .getByText(/^\*+\d{4}$/)
      .first()
      .waitFor();
    await assertAccessible(page, 'partner page');
    await assertLabelsInNames(page, 'partner page');
    await screenshot(page, 'console-partner-1280');

    const documentItem = (title: string) =>
      page.locator('.document').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
    await page.getByRole('button', { name: 'Approve CAC certificate' }).click();
    await documentItem('CAC certificate').getByText('Approved', { exact: true }).waitFor();
    await page.getByRole('button', { name: "Approve Representative's ID" }).click();
    await documentItem("Representative's ID").getByText('Approved', { exact: true }).waitFor();

    // Rejecting asks for a reason in a dialog, which the partner will read.
    await page.getByRole('button', { name: 'Reject Memorandum and articles (MEMART)' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Reject Memorandum and articles (MEMART)?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Reject document' }).click();
    await dialog.getByText('Give a reason: the partner is shown it.').waitFor();
    await assertAccessible(page, 'reject dialog');
    await viewportShot(page, 'console-partner-reject-dialog-1280');
    await dialog.getByLabel('Reason for rejecting').fill('The MEMART is unsigned; upload the signed copy.');
    await dialog.getByRole('button', { name: 'Reject document' }).click();
    await dialog.waitFor({ state: 'detached' });
    await documentItem('Memorandum and articles (MEMART)').getByText('Rejected', { exact: true }).waitFor();
    await page.getByText('The MEMART is unsigned; upload the signed copy.').first().waitFor();

    // Approving now is refused by the server, which names what is missing, beside the action.
    await page.getByRole('button', { name: 'Approve application…' }).click();
    await page
      .getByRole('alertdialog', { name: 'Approve the application?' })
      .getByRole('button', { name: 'Approve application' })
      .click();
    const failure = page.locator('.decision-panel').getByRole('alert');
    await failure.getByText('Approve application failed').waitFor();
    assert.match(await failure.innerText(), /Memorandum and articles \(MEMART\)/);

    // Changes requested: the partner may upload again.
    await page.getByRole('button', { name: 'Request changes…' }).click();
    const changes = page.getByRole('alertdialog', { name: 'Request changes?' });
    await changes
      .getByLabel('What should the partner change?')
      .fill('Upload the signed MEMART, then submit again.');
    await changes.getByRole('button', { name: 'Request changes' }).click();
    await page.getByText('Changes were requested. The partner sees your reason.').waitFor();
    await page.locator('.page-header').getByText('In progress').waitFor();

    const upload = await postDocument(
      suite.t,
      partner.token,
      { document_type: 'memart' },
      {
        file: {
          bytes: pdfWith(['Signed MEMART of Sunrise Remit Ltd']),
          name: 'memart.pdf',
          type: 'application/pdf',
        },
      },
    );
    assert.equal(upload.status, 201, upload.text);
    const resubmitted = await submit(suite.t, partner.token);
    assert.equal(resubmitted.status, 200, resubmitted.text);

    await page.reload();
    await page.locator('.page-header').getByText('Under review').waitFor();
    const memart = documentItem('Memorandum and articles (MEMART)');
    await memart.getByText('Pending review', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Earlier uploads (1)' }).waitFor();
    await memart.getByRole('button', { name: 'Show preview of Memorandum and articles (MEMART)' }).click();
    // Drawn in the page by pdf.js, not framed for the browser's PDF viewer.
    const canvas = memart.getByRole('img', { name: 'Page 1 of 1 of Memorandum and articles (MEMART)' });
    await canvas.waitFor();
    await eventually('the page is drawn', () => drawn(canvas));
    assert.equal(await page.locator('iframe, embed, object').count(), 0);
    await memart.getByText('1 page', { exact: true }).waitFor();
    await assertAccessible(page, 'partner page, PDF preview');
    await screenshot(page, 'console-partner-preview-1280');
    await memart.getByRole('button', { name: 'Hide preview of Memorandum and articles (MEMART)' }).click();
    await canvas.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Approve Memorandum and articles (MEMART)' }).click();
    await memart.getByText('Approved', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Approve application…' }).click();
    const approve = page.getByRole('alertdialog', { name: 'Approve the application?' });
    await approve.waitFor();
    await assertAccessible(page, 'approve dialog');
    await viewportShot(page, 'console-partner-approve-dialog-1280');
    await approve.getByRole('button', { name: 'Approve application' }).click();
    await page.getByText('The application was approved. The partner can now go live.').waitFor();
    await page.locator('.page-header').getByText('Active').waitFor();
    // Active: the next decision offered is suspension.
    await page.getByRole('button', { name: 'Suspend partner…' }).waitFor();

    const live = await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token: partner.token });
    assert.equal(live.status, 200, live.text);

    // The history names the admin for each decision.
    const history = page.locator('.audit-trail');
    await history.getByText('Onboarding status changed').first().waitFor();
    const entries = await history.locator('.audit-trail__item').allInnerTexts();
    assert.ok(
      entries.some((entry) => /Approved a document/.test(entry) && entry.includes(`by ${admin.name}`)),
      entries.join('\n'),
    );
    assert.ok(
      entries.some((entry) => /Rejected a document/.test(entry) && /unsigned/.test(entry)),
      entries.join('\n'),
    );
    assert.ok(
      entries.some((entry) => /Under review → Active/.test(entry)),
      entries.join('\n'),
    );
    await assertAccessible(page, 'partner page, approved');
    await screenshot(page, 'console-partner-approved-1280');
    await page.setViewportSize({ width: 375, height: 900 });
    await assertNoOverflow(page, 'partner page at 375 px');
    await screenshot(page, 'console-partner-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Suspended: the partner's live session is refused until the partner is reinstated.
    await page.getByRole('button', { name: 'Suspend partner…' }).click();
    const suspend = page.getByRole('alertdialog', { name: 'Suspend the partner?' });
    await suspend.getByLabel('Reason for suspending').fill('Chargebacks under investigation.');
    await suspend.getByRole('button', { name: 'Suspend partner' }).click();
    await page.getByText('The partner was suspended.').waitFor();
    await page.locator('.page-header').getByText('Suspended').waitFor();
    const refused = await suite.t.api.put(ENVIRONMENT, { environment: 'live' }, { token: partner.token });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error_code, 'PARTNER_SUSPENDED');
    await page.getByRole('button', { name: 'Reinstate partner…' }).click();
    await page
      .getByRole('alertdialog', { name: 'Reinstate the partner?' })
      .getByRole('button', { name: 'Reinstate partner' })
      .click();
    await page.getByText('The partner was reinstated.').waitFor();
    await page.locator('.page-header').getByText('Active').waitFor();

    // Decided: out of the default queue, found by its status.
    await page.getByRole('link', { name: '← Review queue' }).click();
    await page.getByText('Nothing is waiting for review.').waitFor();
    await page.getByRole('button', { name: /Show$/ }).click();
    await page.getByRole('option', { name: 'Status: Active' }).click();
    await page.waitForURL(/\/console\/review\?show=active$/);
    const active = page.getByRole('row', { name: /Sunrise Remit Ltd/ });
    await active.getByText('Not waiting').waitFor();
    adminPage.assertClean('review');
  });

  it('reviews with the keyboard alone: opens the partner from the queue, approves a document, rejects one with a reason, approves the application', async () => {
    const partner = await newPartner(suite, 'signed-in', { business_name: 'Harbour Pay Ltd' });
    await completeOnboarding(suite.t, partner.token);
    const tin = await postDocument(
      suite.t,
      partner.token,
      { document_type: 'tin_certificate' },
      { file: { bytes: PDF_BYTES, name: 'tin.pdf', type: 'application/pdf' } },
    );
    assert.equal(tin.status, 201, tin.text);
    assert.equal((await submit(suite.t, partner.token)).status, 200);
    // Two of the checklist's documents were decided already (over the API); the rest is done here.
    const record = await partnerRecord(suite.t, partner.companyId);
    for (const document of record.documents as Array<{ id: string; document_type: string }>) {
      if (!['cac_certificate', 'valid_id'].includes(document.document_type)) continue;
      const approved = await adminPost(suite.t, adminDocumentUrl(partner.companyId, document.id, 'approve'));
      assert.equal(approved.status, 200, approved.text);
    }

    const { page } = adminPage;
    await page.goto('/console/review');
    await page.getByRole('row', { name: /Harbour Pay Ltd/ }).waitFor();
    await tabTo(page, 'link "Harbour Pay Ltd"');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Harbour Pay Ltd' }).waitFor();
    assert.equal(await page.locator(':focus').getAttribute('id'), 'main');

    await tabTo(page, 'button "Approve Memorandum and articles (MEMART)"');
    await page.keyboard.press('Space');
    const item = (title: string) =>
      page.locator('.document').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
    await item('Memorandum and articles (MEMART)').getByText('Approved', { exact: true }).waitFor();
    // The decided document keeps focus near it: on its heading.
    await focusIs(page, 'heading "Memorandum and articles (MEMART)"');

    await tabTo(page, 'button "Reject TIN certificate"');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: 'Reject TIN certificate?' });
    await dialog.waitFor();
    await focusIs(page, 'textbox "Reason for rejecting"');
    // Escape closes the dialog and gives focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await focusIs(page, 'button "Reject TIN certificate"');
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.type('The TIN certificate belongs to another company.');
    await tabTo(page, 'button "Reject document"');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await item('TIN certificate').getByText('Rejected', { exact: true }).waitFor();
    await focusIs(page, 'heading "TIN certificate"');

    await tabTo(page, 'button "Approve application…"', true);
    await page.keyboard.press('Enter');
    const approve = page.getByRole('alertdialog', { name: 'Approve the application?' });
    await approve.waitFor();
    await tabTo(page, 'button "Approve application"');
    await page.keyboard.press('Enter');
    await page.getByText('The application was approved. The partner can now go live.').waitFor();
    await page.locator('.page-header').getByText('Active').waitFor();
    await focusIs(page, 'heading "Review and decision"');
    const after = await partnerRecord(suite.t, partner.companyId);
    assert.equal(after.onboarding_status, 'active');
    adminPage.assertClean('keyboard review');
  });

  it('previews an uploaded PDF whose scripts raise an alert and a password prompt: pdf.js draws its pages, no script runs, no dialog opens', async () => {
    const partner = await newPartner(suite, 'signed-in', { business_name: 'Tidewater Pay Ltd' });
    const hostile = pdfWith(['Certificate, page one', 'Certificate, page two'], {
      openScript: "app.alert('pwned')",
      pageOpenScript: "app.response({ cQuestion: 'Console password:' })",
    });
    const upload = await postDocument(
      suite.t,
      partner.token,
      { document_type: 'other' },
      { file: { bytes: hostile, name: 'certificate.pdf', type: 'application/pdf' } },
    );
    assert.equal(upload.status, 201, upload.text);

    const { page, context } = adminPage;
    // A dialog of the page, of any frame in it, or of a window it opened: none may appear.
    const dialogs: string[] = [];
    const popups: string[] = [];
    const onDialog = (dialog: { type(): string; message(): string; dismiss(): Promise<void> }) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => {});
    };
    const onPage = (opened: Page) => popups.push(opened.url());
    context.on('dialog', onDialog);
    context.on('page', onPage);
    try {
      await page.goto(`/console/partners/${partner.companyId}`);
      await page.getByRole('heading', { level: 1, name: 'Tidewater Pay Ltd' }).waitFor();
      const item = page
        .locator('.document')
        .filter({ has: page.getByRole('heading', { name: 'Other document', exact: true }) });
      await tabTo(page, 'button "Show preview of Other document"');
      await page.keyboard.press('Enter');
      // Long enough for an opening script and a page's action to have run, had anything run them.
      await page.waitForTimeout(3000);
      assert.deepEqual(dialogs, [], 'the PDF raised dialogs');
      assert.deepEqual(popups, [], 'a window opened');
      assert.deepEqual(
        page
          .frames()
          .filter((frame) => frame !== page.mainFrame())
          .map((frame) => frame.url()),
        [],
        "no frame: the browser's PDF viewer is not involved",
      );
      assert.equal(await page.locator('iframe, embed, object').count(), 0);
      const canvas = item.getByRole('img', { name: 'Page 1 of 2 of Other document' });
      await canvas.waitFor();
      await eventually('page 1 is drawn', () => drawn(canvas));
      await item.getByText('Page 1 of 2', { exact: true }).waitFor();
      // pdf.js parses the file in its worker (a hashed asset of the console), not in the page.
      assert.ok(
        page
          .workers()
          .some((worker) => /\/console\/assets\/pdf\.worker\.min-[\w-]+\.mjs$/.test(worker.url())),
        page
          .workers()
          .map((worker) => worker.url())
          .join(', '),
      );
      await assertAccessible(page, 'PDF preview');
      await screenshot(page, 'console-partner-pdf-preview-1280');

      // The pages by keyboard: the first has no previous page, Next is the control after it.
      await tabTo(page, 'button "Next page"');
      await page.keyboard.press('Enter');
      const second = item.getByRole('img', { name: 'Page 2 of 2 of Other document' });
      await second.waitFor();
      await item.getByText('Page 2 of 2', { exact: true }).waitFor();
      await eventually('page 2 is drawn', () => drawn(second));
      assert.equal(await item.getByRole('button', { name: 'Next page' }).isDisabled(), true);
      await tabTo(page, 'button "Previous page"', true);
      await page.keyboard.press('Enter');
      await item.getByText('Page 1 of 2', { exact: true }).waitFor();
      await page.waitForTimeout(1000);
      assert.deepEqual(dialogs, [], 'the PDF raised dialogs');
      await page.setViewportSize({ width: 375, height: 900 });
      await assertNoOverflow(page, 'PDF preview at 375 px');
      await screenshot(page, 'console-partner-pdf-preview-375');
      await page.setViewportSize({ width: 1280, height: 900 });

      // The link beside it downloads the file; nothing opens it in the browser.
      const download = page.waitForEvent('download');
      await item.getByRole('link', { name: 'Download Other document' }).click();
      assert.match((await download).suggestedFilename(), /^other-.+\.pdf$/);
      assert.deepEqual(popups, [], 'a window opened');
      adminPage.assertClean('PDF preview');
    } finally {
      context.off('dialog', onDialog);
      context.off('page', onPage);
    }
  });

  it('shows partner text stored with bidirectional controls isolated and as written: the controls are marked, nothing reads reversed', async () => {
    const partner = await newPartner(suite, 'submitted', { business_name: 'Marina Rails Ltd' });
    // Stored before the API refused such characters: written straight into the database.
    const spoof = 'Acme \u202Edetimil deviorppa';
    await suite.t.db
      .updateTable('partners')
      .set({
        business_name: spoof,
        legal_business_name: `${spoof} Ltd`,
        address: '12 Marina \u202E,sogaL',
        review_notes: 'Checked \u2067\u202Edevorppa\u2069 by the team',
      })
      .where('id', '=', partner.companyId)
      .execute();
    await suite.t.db
      .updateTable('representatives')
      .set({ first_name: 'Ada\u202E', last_name: 'Obi' })
      .where('partner_id', '=', partner.companyId)
      .execute();

    const { page } = adminPage;
    await page.goto('/console/review');
    const row = page.getByRole('row', { name: /^Acme/ });
    await row.waitFor();
    await screenshot(page, 'console-review-queue-bidi-1280');
    assert.ok(await readsInOrder(row), 'the row reads as stored, left to right');
    const name = row.locator('.data-table__primary bdi');
    assert.equal(await name.count(), 1, 'the business name is isolated in a <bdi>');
    assert.equal(await name.innerText(), 'Acme U+202Edetimil deviorppa');
    assert.equal(
      await name.locator('.bidi-control').getAttribute('title'),
      'Hidden right-to-left override, shown instead of applied',
    );
    await assertAccessible(page, 'review queue with marked controls');

    await row.getByText('detimil deviorppa').first().click();
    const heading = page.getByRole('heading', { level: 1 });
    await heading.getByText('detimil deviorppa').waitFor();
    assert.equal(await heading.locator('bdi').count(), 1);
    assert.equal(await page.title(), 'Acme [U+202E]detimil deviorppa · Operator console');
    for (const [what, locator] of [
      ['the heading', heading],
      ['the header', page.locator('.page-header')],
      ['the profile', page.locator('.detail-list').first()],
      [
        'the representative',
        page.locator('.partner-section').filter({ hasText: 'Compliance representative' }),
      ],
      ['the review notes', page.locator('.decision-panel__notes')],
    ] as const) {
      assert.ok(await readsInOrder(locator), `${what} reads as stored`);
      const text = await locator.innerText();
      assert.ok(
        !/[\u202A-\u202E\u2066-\u2069]/.test(text),
        `${what} has no control left: ${JSON.stringify(text)}`,
      );
    }
    const marks = await page.locator('.partner-page .bidi-control').count();
    assert.ok(marks >= 6, `${marks} controls marked`);
    await assertAccessible(page, 'partner page with marked controls');
    await screenshot(page, 'console-partner-bidi-1280');
    adminPage.assertClean('bidirectional text');
  });

  it('invites a reviewer from the operators page; the reviewer is not offered approval and the server refuses it (403)', async () => {
    const { page } = adminPage;
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Operators' }).click();
    await page.getByRole('heading', { level: 1, name: 'Operators' }).waitFor();
    await page.getByRole('row', { name: /Ngozi Okafor/ }).waitFor();
    await assertAccessible(page, 'operators page');
    await screenshot(page, 'console-operators-1280');

    const email = uniqueEmail('reviewer');
    await page.getByRole('button', { name: 'Invite an operator…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite an operator' });
    await dialog.getByLabel('E-mail address').fill(email);
    await dialog.getByRole('radio', { name: /Reviewer/ }).check();
    await assertAccessible(page, 'invite dialog');
    await dialog.getByRole('button', { name: 'Create invitation' }).click();
    const created = page.getByRole('dialog', { name: 'Invitation created' });
    await created.getByText('Copy this link now: it is shown only once.').waitFor();
    const link = await created.getByLabel('Set-up link').inputValue();
    await assertAccessible(page, 'invitation link dialog');
    await viewportShot(page, 'console-operators-invitation-link-1280');
    await created.getByRole('button', { name: 'Done' }).click();
    await page
      .getByRole('row', { name: new RegExp(email) })
      .getByText('New operator')
      .waitFor();

    reviewerPage = await openPage(browser, suite.t.url);
    const password = randomPassword();
    const setup = await setUp(reviewerPage.page, setupPath(link), { name: 'Tunde Bello', password });
    reviewer = { email, password, name: 'Tunde Bello', ...setup };
    const rp = reviewerPage.page;
    await rp.getByRole('banner').getByText(`Reviewer · ${email}`).waitFor();
    assert.equal(
      await rp.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Operators' }).count(),
      0,
    );

    const partner = await newPartner(suite, 'submitted', { business_name: 'Lagoon Wallet Ltd' });
    await rp.goto(`/console/partners/${partner.companyId}`);
    await rp.getByRole('heading', { level: 1, name: 'Lagoon Wallet Ltd' }).waitFor();
    await rp.getByRole('button', { name: 'Request changes…' }).waitFor();
    await rp.getByRole('button', { name: 'Approve CAC certificate' }).waitFor();
    assert.equal(await rp.getByRole('button', { name: 'Approve application…' }).count(), 0);
    assert.equal(await rp.getByRole('button', { name: 'Reject application…' }).count(), 0);
    await rp
      .getByText('Approving, rejecting, suspending and reinstating a partner are for admins.')
      .waitFor();
    await screenshot(rp, 'console-partner-reviewer-1280');

    // The reviewer's own cookie and anti-forgery token, straight at the API: refused by role.
    const refused = await rp.request.post(adminPartnerUrl(partner.companyId, 'approve'), {
      headers: { 'x-csrf-token': await csrfOf(rp), origin: suite.t.url },
    });
    assert.equal(refused.status(), 403);
    assert.equal(((await refused.json()) as { error_code: string }).error_code, 'FORBIDDEN');
    assert.equal((await partnerRecord(suite.t, partner.companyId)).onboarding_status, 'under_review');

    // The operators page is not for reviewers.
    await rp.goto('/console/operators');
    await rp.getByText('Only admins manage operators.').waitFor();
    reviewerPage.assertClean('reviewer');
    adminPage.assertClean('operators');
  });

  it('refuses a state-changing request that has the session cookie but no X-CSRF-Token: 403 CSRF_REJECTED', async () => {
    const { page } = adminPage;
    const url = adminPartnerUrl(reviewed.companyId, 'suspend');
    const withoutToken = await page.request.post(url, {
      data: { reason: 'forged' },
      headers: { origin: suite.t.url },
    });
    assert.equal(withoutToken.status(), 403);
    assert.equal(((await withoutToken.json()) as { error_code: string }).error_code, 'CSRF_REJECTED');

    // The same from the page's own script, without the header the console's client adds.
    const fromPage = await page.evaluate(async (target) => {
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'forged' }),
      });
      return { status: response.status, body: (await response.json()) as { error_code: string } };
    }, url);
    assert.equal(fromPage.status, 403);
    assert.equal(fromPage.body.error_code, 'CSRF_REJECTED');
    assert.equal((await partnerRecord(suite.t, reviewed.companyId)).onboarding_status, 'active');
  });

  it('filters and pages the audit log', async () => {
    const { page } = adminPage;
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('grid', { name: 'Audit events' });
    await table.getByRole('row').nth(1).waitFor();
    await assertAccessible(page, 'audit log');
    await screenshot(page, 'console-audit-log-1280');

    // More than a page of events by now: the pager goes forward and back.
    await page.getByText('Page 1').waitFor();
    const firstPage = await table.getByRole('row').nth(1).innerText();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await eventually(
      'page 2 shows other events',
      async () => (await table.getByRole('row').nth(1).innerText()) !== firstPage,
    );
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Page 1').waitFor();

    // The partner by its name, not its ID; the row names it and the operator who acted.
    await page.getByRole('textbox', { name: 'Company' }).fill('Sunrise Remit');
    await page.getByRole('textbox', { name: 'Action' }).fill('document.rejected');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/company=Sunrise\+Remit&action=document.rejected/);
    const rows = table.getByRole('row');
    // A header and the one rejection.
    await eventually('the filtered log shows one event', async () => (await rows.count()) === 2);
    await table.getByText('Rejected a document').waitFor();
    const rejection = await rows.nth(1).innerText();
    assert.ok(rejection.includes(admin.email), rejection);
    assert.ok(rejection.includes(admin.name) && rejection.includes('Sunrise Remit Ltd'), rejection);
    assert.equal(
      await table.getByRole('link', { name: 'Sunrise Remit Ltd' }).getAttribute('href'),
      `/console/partners/${reviewed.companyId}`,
    );
    assert.match(rejection, /unsigned/);

    // By actor: the admin's own actions, chosen from the list.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: /Actor$/ }).click();
    await page.getByRole('option', { name: 'Admin API key' }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/actor_type=api_key/);
    await eventually("only the API key's events are listed", async () => {
      const texts = (await table.getByRole('row').allInnerTexts()).slice(1);
      return texts.length > 0 && texts.every((text) => text.includes('Admin API key'));
    });
    await screenshot(page, 'console-audit-log-filtered-1280');
    adminPage.assertClean('audit log');
  });

  it('signs in with password and code, says what went wrong (password, code, a reused code, lock-out), and takes a recovery code', async () => {
    const signInPage = await openPage(browser, suite.t.url);
    const { page } = signInPage;
    try {
      await page.goto('/console/review');
      await page.waitForURL(/\/console\/sign-in\?next=%2Freview$/);
      await page.getByRole('heading', { level: 1, name: 'Operator console' }).waitFor();
      await assertAccessible(page, 'sign-in');
      await screenshot(page, 'console-sign-in-1280');

      await page.getByLabel('E-mail address').fill(admin.email);
      await page.getByLabel('Password').fill('not-the-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('The e-mail address or password is incorrect.').waitFor();

      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const code = page.getByLabel('Authentication code');
      await code.waitFor();
      await assertAccessible(page, 'second factor step');
      nextTotpStep(suite.t.clock);
      const now = totp(admin.secret, suite.t.clock.now());
      await code.fill(now === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      await page
        .getByRole('alert')
        .getByText('The code is not right: check your authenticator app and try again.')
        .waitFor();
      await screenshot(page, 'console-sign-in-code-1280');
      await code.fill(now);
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      // Back to the page asked for.
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      // The same code again, in the same 30 seconds: refused as used.
      await page.getByLabel('E-mail address').fill(admin.email);
      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await code.fill(now);
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      await page.getByRole('alert').getByText('This code was already used: wait for the next one').waitFor();
      // A recovery code instead.
      await code.fill(admin.recoveryCodes[0]!);
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();

      // Ten wrong passwords for one address within 15 minutes lock it, and the page says how long.
      const locked = uniqueEmail('locked');
      for (let i = 0; i < 10; i += 1) {
        const wrong = await suite.t.api.post(`${SESSION}/password`, {
          email: locked,
          password: 'wrong-password',
        });
        assert.equal(wrong.status, 401, wrong.text);
      }
      await page.getByLabel('E-mail address').fill(locked);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('alert')
        .getByText(/^Too many sign-in attempts for this account\. Wait \d+ minutes?, then try again\.$/)
        .waitFor();
      await assertAccessible(page, 'sign-in locked out');
      await screenshot(page, 'console-sign-in-locked-1280');
      signInPage.assertClean('sign-in');
    } finally {
      await signInPage.close();
    }
  });

  it('resets a reviewer’s second factor and deactivates them; sign-in says which, the set-up link gives a new authenticator', async () => {
    assert.ok(reviewer && reviewerPage);
    const { page } = adminPage;
    await page.goto('/console/operators');
    const reset = page.getByRole('button', { name: 'Reset second factor of Tunde Bello' });
    await reset.waitFor();
    // Its visible label is part of its name (issue 30: "Reset second factor…" was not).
    assert.equal(await reset.innerText(), 'Reset second factor');
    await assertLabelsInNames(page, 'operators');
    await reset.click();
    const confirm = page.getByRole('alertdialog', { name: 'Reset the second factor of Tunde Bello?' });
    await confirm.getByRole('button', { name: 'Reset second factor' }).click();
    const done = page.getByRole('alertdialog', { name: 'Second factor reset' });
    const link = await done.getByLabel('Set-up link').inputValue();
    await done.getByRole('button', { name: 'Done' }).click();
    await page
      .getByRole('row', { name: /Tunde Bello/ })
      .getByText('Second factor reset')
      .waitFor();

    // The reviewer was signed out by the reset: the next page says so, and sign-in explains why.
    const rp = reviewerPage.page;
    await rp.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Review queue' }).click();
    await rp.getByText('Your session ended, so you were signed out.').waitFor();
    await rp.getByLabel('E-mail address').fill(reviewer.email);
    await rp.getByLabel('Password').fill(reviewer.password);
    await rp.getByRole('button', { name: 'Sign in' }).click();
    await rp
      .getByRole('alert')
      .getByText('Your second factor was reset: open the set-up link an admin gave you')
      .waitFor();

    nextTotpStep(suite.t.clock);
    const setup = await setUp(
      rp,
      setupPath(link),
      { currentPassword: reviewer.password },
      'console-setup-reset',
    );
    reviewer = { ...reviewer, ...setup };

    await page.reload();
    await page.getByRole('button', { name: 'Deactivate Tunde Bello' }).click();
    const deactivate = page.getByRole('alertdialog', { name: 'Deactivate Tunde Bello?' });
    await assertAccessible(page, 'deactivate dialog');
    await deactivate.getByRole('button', { name: 'Deactivate' }).click();
    await deactivate.waitFor({ state: 'detached' });
    await page
      .getByRole('row', { name: /Tunde Bello/ })
      .getByText('Deactivated')
      .waitFor();

    await rp.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
    await rp.getByText('Your session ended, so you were signed out.').waitFor();
    await rp.getByLabel('E-mail address').fill(reviewer.email);
    await rp.getByLabel('Password').fill(reviewer.password);
    await rp.getByRole('button', { name: 'Sign in' }).click();
    await rp.getByRole('alert').getByText('This operator account is deactivated').waitFor();
    reviewerPage.assertClean('reset and deactivation');
    adminPage.assertClean('reset and deactivation');
  });

  it('changes the password on the account page and signs out another session of the same operator', async () => {
    const { page } = adminPage;
    const elsewhere = await openPage(browser, suite.t.url);
    try {
      await elsewhere.page.goto('/console/sign-in');
      await signIn(elsewhere.page, admin);
      await elsewhere.page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();

      await page.goto('/console/review');
      await page.getByRole('link', { name: /^Your account: / }).click();
      await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
      const sessions = page.getByRole('grid', { name: 'Sessions' });
      await eventually('two sessions listed', async () => (await sessions.getByRole('row').count()) === 3);
      await sessions.getByText('This session').waitFor();
      await assertAccessible(page, 'account page');
      await screenshot(page, 'console-account-1280');

      const other = sessions.getByRole('row').filter({ hasNotText: 'This session' }).nth(1);
      await other.getByRole('button', { name: /^Sign out / }).click();
      await page.getByRole('status').getByText('Session signed out.').waitFor();
      await eventually('one session left', async () => (await sessions.getByRole('row').count()) === 2);
      await elsewhere.page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Audit log' })
        .click();
      await elsewhere.page.getByText('Your session ended, so you were signed out.').waitFor();

      const password = randomPassword();
      const form = page.getByRole('region', { name: 'Password' });
      await page.getByLabel('Current password').fill(`${admin.password}?`);
      await page.getByLabel('New password', { exact: true }).fill(password);
      await page.getByLabel('Confirm new password').fill(password);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Is not your current password.').waitFor();
      await page.getByLabel('Current password').fill(admin.password);
      await page.getByLabel('Current password').press('Enter');
      await page.getByText('Password changed.').waitFor();
      assert.equal(await page.getByLabel('Current password').inputValue(), '', 'the form is emptied');
      await assertAccessible(page, 'password changed');
      await screenshot(page, 'console-account-password-changed-1280');
      assert.ok(await form.count());
      admin = { ...admin, password };
      elsewhere.assertClean('the other session');
      adminPage.assertClean('account page');
    } finally {
      await elsewhere.close();
    }
  });

  it('ends an idle session: after 31 minutes the next page is sign-in with the reason, and signing in returns there', async () => {
    const { page } = adminPage;
    await page.goto(`/console/partners/${reviewed.companyId}`);
    await page.getByRole('heading', { level: 1, name: 'Sunrise Remit Ltd' }).waitFor();

    suite.t.clock.advance(31 * 60_000);
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Review queue' })
      .click();
    await page.getByText('Your session ended, so you were signed out.').waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/sign-in');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/review');
    await assertAccessible(page, 'sign-in after the session ended');
    await screenshot(page, 'console-sign-in-session-ended-1280');
    await signIn(page, admin);
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();

    // A page opened afresh after the session ran out: the same, back to that page.
    suite.t.clock.advance(31 * 60_000);
    await page.goto(`/console/partners/${reviewed.companyId}`);
    await page.getByText('Your session ended, so you were signed out.').waitFor();
    await signIn(page, admin);
    await page.getByRole('heading', { level: 1, name: 'Sunrise Remit Ltd' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/partners/${reviewed.companyId}`);
    adminPage.assertClean('idle session');
  });

  it('says when a set-up link has expired, or is incomplete', async () => {
    const invited = await adminPost(suite.t, INVITATIONS, { email: uniqueEmail('late'), role: 'reviewer' });
    assert.equal(invited.status, 201, invited.text);
    suite.t.clock.advance(73 * 3600_000);
    const visitor = await openPage(browser, suite.t.url);
    try {
      await visitor.page.goto(setupPath(invited.body.data.url as string));
      await visitor.page.getByRole('heading', { level: 1, name: 'This set-up link has expired' }).waitFor();
      await visitor.page.getByText('Ask an admin to send you a new one.').waitFor();
      await assertAccessible(visitor.page, 'expired link');
      await screenshot(visitor.page, 'console-setup-expired-link-1280');
      await visitor.page.goto('/console/setup');
      await visitor.page.getByRole('heading', { level: 1, name: 'This set-up link is incomplete' }).waitFor();
      visitor.assertClean('set-up links');
    } finally {
      await visitor.close();
    }
  });
});
