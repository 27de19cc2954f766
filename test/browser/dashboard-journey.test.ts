import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { adminPost } from '../support/admin.js';
import { useApp } from '../support/app.js';
import { dateField, fillDate, launchBrowser } from '../support/browser.js';
import { PDF_BYTES, PNG_BYTES, randomPassword, STRONG_PASSWORD, uniqueEmail } from '../support/factories.js';
import { ADMIN_PREFIX, LOGIN } from '../support/paths.js';
import { enrolSecondFactor } from '../support/second-factor.js';
import { nextTotpStep, totp } from '../support/totp.js';
import {
  checkPage,
  choose,
  companyIdOf,
  type DashboardPage,
  dropFile,
  openDashboard,
  pickFile,
  signInThroughForm,
} from './dashboard-helpers.js';

const INVITATIONS = `${ADMIN_PREFIX}invitations`;

/*
 * The partner's whole journey through /dashboard, as one person in one browser: sign-up, the
 * e-mailed code, sign-in, onboarding with uploads through the upload UI, submission, the operator's
 * review in the console (a second browser: changes requested, then approval), a sandbox account
 * credited, then live. Each step checks the page with axe-core and
 * leaves a screenshot in test-output/screenshots/.
 */
describe('dashboard: the partner journey from sign-up to a live account', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  /** The operator's browser (the console), from the review on. */
  let operator: DashboardPage;
  const email = uniqueEmail('journey');

  before(async () => {
    browser = await launchBrowser();
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
  });
  after(async () => {
    await operator?.close();
    await recorded?.close();
    await browser?.close();
  });

  it('signs up and verifies the e-mail address with the code from the e-mail', async () => {
    await page.goto('/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Partner dashboard' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
    await checkPage(page, 'sign-in-1280');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create your partner account' }).waitFor();
    await page.getByLabel('Business name').fill('Acme Payments Ltd');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Phone number').fill('+234 803 123 4567');
    await page.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await page.getByLabel('Confirm password').fill(STRONG_PASSWORD);
    await checkPage(page, 'sign-up-1280');
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByRole('heading', { level: 1, name: 'Verify your e-mail address' }).waitFor();
    await page.getByText(`We sent a 6-digit code to ${email}.`).waitFor();
    const code = await suite.sink.otpFor(email);
    const otp = page.getByLabel('6-digit code');
    assert.equal(await otp.getAttribute('autocomplete'), 'one-time-code');
    // As pasted from an e-mail client: with a space in the middle. The field keeps the digits.
    await otp.fill(`${code.slice(0, 3)} ${code.slice(3)}`);
    assert.equal(await otp.inputValue(), code);
    await checkPage(page, 'verify-1280');
    await page.getByRole('button', { name: 'Verify e-mail address' }).click();

    await page.getByText('Your e-mail address is verified. Sign in to continue.').waitFor();
    assert.equal(await page.getByLabel('E-mail address').inputValue(), email);
  });

  it('signs in with a cookie session the page cannot read and lands on the overview', async () => {
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/overview');
    const cookies = await recorded.context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'baas_dashboard');
    assert.ok(session, 'the session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '', 'page scripts see no cookie');
    await page.getByText('Test data only: nothing here moves real money.').waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Live mode' }).isDisabled(), true);
    await page.getByText('Live opens once your onboarding is approved.').waitFor();
    await checkPage(page, 'overview-1280');
  });

  it('completes onboarding: profile, representative with KYC, documents uploaded through the UI, submission', async () => {
    await page.getByRole('link', { name: 'Onboarding', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Onboarding' }).waitFor();
    await page.getByText('Choose your business type in step 1').waitFor();
    await checkPage(page, 'onboarding-start-1280');

    const profile = page.locator('#business-profile');
    await profile.getByLabel('Legal business name').fill('Acme Payments Limited');
    await choose(profile, /Business type/, 'Limited liability company');
    await profile.getByLabel('Registration number').fill('RC1234567');
    await profile.getByLabel('Registered address').fill('12 Marina, Lagos');
    await profile.getByRole('button', { name: 'Save business profile' }).click();
    await profile.getByText('Business profile saved.').waitFor();
    await page.getByText('0 of 3 required documents provided.').waitFor();

    const representative = page.locator('#representative');
    await representative.getByLabel('First name').fill('Ada');
    await representative.getByLabel('Last name').fill('Obi');
    await representative.getByLabel('E-mail address').fill('ada.obi@acme.ng');
    await representative.getByLabel('Phone number').fill('+2348031234567');
    await fillDate(dateField(representative, 'Date of birth'), '1985-04-12');
    await representative.getByText('Female', { exact: true }).click();
    await choose(representative, /Role in the business/, 'Director');
    await representative.getByLabel('BVN').fill('22123456789');
    await choose(representative, /ID type/, 'National ID (NIN slip or card)');
    await representative.getByLabel('Residential address').fill('3 Bourdillon Road, Ikoyi, Lagos');
    await pickFile(page, representative.getByRole('button', { name: 'Choose file: ID document' }), {
      name: 'ada-obi-nin.png',
      mimeType: 'image/png',
      buffer: PNG_BYTES,
    });
    await representative.getByText('ada-obi-nin.png').waitFor();
    await checkPage(page, 'onboarding-representative-1280');
    await representative.getByRole('button', { name: 'Save and verify identity' }).click();
    await representative.getByText('Ada Obi is saved and their identity check passed.').waitFor();

    const documents = page.locator('#documents');
    await documents.getByText('1 of 3 required documents provided.').waitFor();
    const cac = documents.getByRole('listitem').filter({ hasText: 'CAC certificate' });
    await pickFile(page, cac.getByRole('button', { name: 'Choose file: CAC certificate' }), {
      name: 'cac-certificate.pdf',
      mimeType: 'application/pdf',
      buffer: PDF_BYTES,
    });
    await cac.getByRole('button', { name: 'Upload CAC certificate' }).click();
    await documents.getByText('2 of 3 required documents provided.').waitFor();

    const memart = documents.getByRole('listitem').filter({ hasText: 'Memorandum and articles' });
    // A file that is not a PDF, JPEG or PNG is refused in the page, before any upload.
    await dropFile(memart.locator('.drop-zone'), {
      name: 'memart.docx',
      mimeType: 'application/pdf',
      buffer: Buffer.from('PK\u0003\u0004 not a pdf'),
    });
    await memart.getByText('memart.docx is not a PDF, JPEG or PNG file.').waitFor();
    await dropFile(memart.locator('.drop-zone'), {
      name: 'memart.pdf',
      mimeType: 'application/pdf',
      buffer: PDF_BYTES,
    });
    await memart.getByText('memart.pdf').waitFor();
    await memart.getByRole('button', { name: /^Upload Memorandum/ }).click();
    await documents.getByText('3 of 3 required documents provided.').waitFor();

    const submit = page.locator('#submit');
    await submit.getByText('Everything is in place.').waitFor();
    await checkPage(page, 'onboarding-ready-1280');
    await submit.getByRole('button', { name: 'Submit application' }).click();
    await page
      .getByRole('alertdialog', { name: 'Submit your application?' })
      .getByRole('button', { name: 'Submit application' })
      .click();
    await submit.getByText('Your application is under review.').waitFor();
    await checkPage(page, 'onboarding-submitted-1280');
  });

  it('is reviewed in the operator console: one document rejected, changes requested', async () => {
    // An operator of the back office, set up from an invitation in a browser of their own.
    const invited = await adminPost(suite.t, INVITATIONS, { email: uniqueEmail('operator'), role: 'admin' });
    assert.equal(invited.status, 201, invited.text);
    operator = await openDashboard(browser, suite.t.url);
    const console = operator.page;
    const link = /\/console\/setup#token=[A-Za-z0-9_-]+$/.exec(invited.body.data.url as string)?.[0];
    assert.ok(link, invited.text);
    await console.goto(link);
    await console.getByLabel('Full name').fill('Ngozi Okafor');
    const password = randomPassword();
    await console.getByLabel('Password', { exact: true }).fill(password);
    await console.getByLabel('Confirm password').fill(password);
    await console.getByRole('button', { name: 'Continue' }).click();
    const key = console.locator('.authenticator-key__value code');
    await key.waitFor();
    const secret = (await key.innerText()).replace(/\s/g, '');
    await console.getByLabel('6-digit code from the app').fill(totp(secret, suite.t.clock.now()));
    await console.getByRole('button', { name: 'Confirm and sign in' }).click();
    await console.getByText('I have saved my recovery codes').click();
    await console.getByRole('button', { name: 'Continue to the console' }).click();
    await console.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();

    await console.goto(`/console/partners/${await companyIdOf(page)}`);
    await console.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
    await console.getByRole('button', { name: 'Approve CAC certificate' }).click();
    await console.getByRole('button', { name: "Approve Representative's ID" }).click();
    await console.getByRole('button', { name: 'Reject Memorandum and articles (MEMART)' }).click();
    const reject = console.getByRole('alertdialog', { name: 'Reject Memorandum and articles (MEMART)?' });
    await reject.getByLabel('Reason for rejecting').fill('The MEMART is unsigned; upload the signed copy.');
    await reject.getByRole('button', { name: 'Reject document' }).click();
    await reject.waitFor({ state: 'detached' });
    await console.getByRole('button', { name: 'Request changes…' }).click();
    const changes = console.getByRole('alertdialog', { name: 'Request changes?' });
    await changes
      .getByLabel('What should the partner change?')
      .fill('Upload the signed MEMART, then submit again.');
    await changes.getByRole('button', { name: 'Request changes' }).click();
    await console.getByText('Changes were requested. The partner sees your reason.').waitFor();
  });

  it("shows the reviewer's notes and the rejection reason, takes the corrected document and is submitted again", async () => {
    await page.reload();
    const notice = page.locator('.review-notice');
    await notice.getByText('Our compliance team asked for changes.').waitFor();
    await notice.getByText('Upload the signed MEMART, then submit again.').waitFor();
    await notice.getByText('The MEMART is unsigned; upload the signed copy.').waitFor();
    const memart = page
      .locator('#documents')
      .getByRole('listitem')
      .filter({ hasText: 'Memorandum and articles' });
    await memart.getByText('Rejected', { exact: true }).waitFor();
    await memart.getByText('Our reviewer rejected this document.').waitFor();
    await checkPage(page, 'onboarding-changes-requested-1280');

    await pickFile(
      page,
      memart.getByRole('button', { name: 'Choose file: Memorandum and articles (MEMART)' }),
      {
        name: 'memart-signed.pdf',
        mimeType: 'application/pdf',
        buffer: PDF_BYTES,
      },
    );
    await memart.getByRole('button', { name: /^Upload Memorandum/ }).click();
    // Not submitted yet, so nobody reviews it: uploaded, not waiting.
    await memart.getByText('Uploaded', { exact: true }).waitFor();
    const submit = page.locator('#submit');
    await submit.getByRole('button', { name: 'Submit application' }).click();
    await page
      .getByRole('alertdialog', { name: 'Submit your application?' })
      .getByRole('button', { name: 'Submit application' })
      .click();
    await submit.getByText('Your application is under review.').waitFor();
  });

  it('is approved in the console, which opens live mode on the dashboard', async () => {
    const console = operator.page;
    await console.reload();
    await console.getByRole('button', { name: 'Approve Memorandum and articles (MEMART)' }).click();
    await console.getByRole('button', { name: 'Approve application…' }).click();
    await console
      .getByRole('alertdialog', { name: 'Approve the application?' })
      .getByRole('button', { name: 'Approve application' })
      .click();
    await console.getByText('The application was approved. The partner can now go live.').waitFor();
    operator.assertClean('the operator console');

    await page.reload();
    await page.locator('#submit').getByText('Your application is approved.').waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Live mode' }).isDisabled(), false);
    assert.equal(await page.locator('.review-notice').count(), 0, 'the notes are settled');
    await checkPage(page, 'onboarding-approved-1280');
  });

  it('issues a sandbox account and credits it with a simulated transfer', async () => {
    await page.getByRole('link', { name: 'Virtual accounts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Virtual accounts' }).waitFor();
    await page.getByText('No accounts yet. Create one for a customer.').waitFor();
    await page.getByRole('button', { name: 'Create account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a sandbox account' });
    await dialog.getByLabel('First name').fill('Tunde');
    await dialog.getByLabel('Last name').fill('Bakare');
    await dialog.getByLabel('E-mail address').fill('tunde@example.com');
    await dialog.getByLabel('Phone number').fill('+2348090000000');
    await checkPage(page, 'account-create-1280');
    await dialog.getByRole('button', { name: 'Create account' }).click();

    await page.getByText(/is ready for Tunde Bakare/).waitFor();
    const heading = await page.getByRole('heading', { level: 1 }).innerText();
    const accountNumber = /Account (\d{10})/.exec(heading)?.[1];
    assert.ok(accountNumber, heading);
    await page.locator('.account__balance-value', { hasText: '₦0.00' }).waitFor();

    await page.getByLabel('Amount (₦)').fill('1,500.50');
    await page.getByLabel('Narration (optional)').fill('First test transfer');
    await page.getByRole('button', { name: 'Credit account' }).click();
    await page.getByText('₦1,500.50 credited. New balance: ₦1,500.50.').waitFor();
    await page.locator('.account__balance-value', { hasText: '₦1,500.50' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'First test transfer' }).getByText('+₦1,500.50').waitFor();
    await checkPage(page, 'account-sandbox-1280');

    await page.getByRole('link', { name: '← Virtual accounts' }).click();
    await page.getByRole('row').filter({ hasText: accountNumber }).getByText('₦1,500.50').waitFor();
    await checkPage(page, 'accounts-1280');
  });

  it('turns a second factor on (live money by session needs one) and signs in with its code', async () => {
    const login = await suite.t.api.post(LOGIN, { email, password: STRONG_PASSWORD });
    assert.equal(login.status, 200, login.text);
    const factor = await enrolSecondFactor(suite.t, login.body.data.token);
    nextTotpStep(suite.t.clock);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await signInThroughForm(page, { email, password: STRONG_PASSWORD });
    const code = page.getByLabel('Authentication code');
    assert.equal(await code.getAttribute('autocomplete'), 'one-time-code');
    await code.fill(totp(factor.secret, suite.t.clock.now()));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Virtual accounts' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Virtual accounts' }).waitFor();
  });

  it('switches to live, where a clear banner shows, and issues a live account', async () => {
    // Where a person clicks: the switch's visible track and label (the input itself is hidden).
    await page.locator('label.switch').click();
    await page.getByText('You are working with live data.').waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Live mode' }).isChecked(), true);
    // Sandbox data stays in the sandbox.
    await page.getByText('No accounts yet. Create one for a customer.').waitFor();

    await page.getByRole('button', { name: 'Create account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a live account' });
    await dialog.getByLabel('First name').fill('Tunde');
    await dialog.getByLabel('Last name').fill('Bakare');
    await dialog.getByLabel('E-mail address').fill('tunde@example.com');
    await dialog.getByLabel('Phone number').fill('+2348090000000');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await page.getByText(/is ready for Tunde Bakare/).waitFor();
    await page
      .getByRole('definition')
      .filter({ hasText: /^Live$/ })
      .waitFor();
    assert.equal(
      await page.getByRole('heading', { name: 'Simulate a credit' }).count(),
      0,
      'no simulation in live',
    );
    await checkPage(page, 'account-live-1280');
    recorded.assertClean('the partner journey');
  });
});
