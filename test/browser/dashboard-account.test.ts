import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { useApp } from '../support/app.js';
import { dateField, fillDate, launchBrowser } from '../support/browser.js';
import { fileOfSize, MIB, STRONG_PASSWORD, uniqueEmail } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { ENVIRONMENT } from '../support/paths.js';
import {
  assertNoOverflow,
  checkPage,
  choose,
  focused,
  openDashboard,
  pickFile,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * The account pages of /dashboard: sign-up errors beside their fields, sign-up with the keyboard
 * alone, the code's resend limit, password reset, an ended session, the anti-forgery header,
 * signing out, the representative form's file checks and KYC result, the not-found page, and the
 * signed-out pages at 375 px.
 */
describe('dashboard: account, session, security and the checks of onboarding forms', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it("shows the API's field errors next to their fields: a taken e-mail, and a short password checked in the page", async () => {
    const taken = await newPartner(suite, 'registered');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await page.goto('/dashboard/sign-up');
      await page.getByLabel('Business name').fill('Second Acme Ltd');
      await page.getByLabel('E-mail address').fill(taken.email.toUpperCase());
      await page.getByLabel('Phone number').fill('+234 803 000 0000');
      await page.getByLabel('Password', { exact: true }).fill('short');
      await page.getByLabel('Confirm password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      // The browser's own check first: nothing was sent, focus is on the field to fix.
      await page.getByText('Use at least 8 characters for your password.').waitFor();
      assert.equal(await focused(page), 'textbox "Password" [invalid]');

      await page.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
      await page.getByLabel('Confirm password').fill(STRONG_PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      const emailField = page.getByLabel('E-mail address');
      await page.getByText('E-mail address is already registered.').waitFor();
      assert.equal(await emailField.getAttribute('aria-invalid'), 'true');
      const describedBy = (await emailField.getAttribute('aria-describedby')) ?? '';
      const descriptions = await Promise.all(
        describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).innerText()),
      );
      assert.ok(descriptions.includes('E-mail address is already registered.'), descriptions.join(' | '));
      await checkPage(page, 'sign-up-errors-1280');

      // Correcting the field clears its error.
      await emailField.fill(uniqueEmail('second'));
      await page.keyboard.press('Tab');
      assert.equal(await page.getByText('E-mail address is already registered.').count(), 0);
      // What the browser logged: the session check of a signed-out page, and the one 422.
      assert.deepEqual(
        recorded.apiRefusals.map((line) => line.replace(/ \(.*$/, '')),
        [
          '/baas/api/v1/client/onboarding/session: Failed to load resource: the server responded with a status of 401',
          '/baas/api/v1/client/onboarding/register: Failed to load resource: the server responded with a status of 422',
        ],
      );
      recorded.assertClean('sign-up errors');
    } finally {
      await recorded.close();
    }
  });

  it('signs up with the keyboard alone: Tab, Shift+Tab, typing and Enter', async () => {
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    const email = uniqueEmail('keyboard');
    try {
      await page.goto('/dashboard/sign-up');
      await page.getByRole('heading', { level: 1, name: 'Create your partner account' }).waitFor();
      const order: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        await page.keyboard.press('Tab');
        order.push(await focused(page));
      }
      assert.deepEqual(order, [
        'link "Skip to main content"',
        'link "BaaS Partner dashboard"',
        'textbox "Business name"',
      ]);
      await page.keyboard.type('Keyboard Payments Ltd');
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'textbox "E-mail address"');
      await page.keyboard.type(email);
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'textbox "Phone number"');
      await page.keyboard.type('+234 803 123 4567');
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'textbox "Password"');
      await page.keyboard.type(STRONG_PASSWORD);
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), 'textbox "Confirm password"');
      // A slip: back to the password with Shift+Tab, and forward again.
      await page.keyboard.press('Shift+Tab');
      assert.equal(await focused(page), 'textbox "Password"');
      await page.keyboard.press('Tab');
      await page.keyboard.type(STRONG_PASSWORD);
      await page.keyboard.press('Enter');

      await page.getByRole('heading', { level: 1, name: 'Verify your e-mail address' }).waitFor();
      // The code, still with the keyboard: Tab to the field, type, Enter.
      for (let i = 0; i < 10 && (await focused(page)) !== 'textbox "6-digit code"'; i += 1) {
        await page.keyboard.press('Tab');
      }
      assert.equal(await focused(page), 'textbox "6-digit code"');
      await page.keyboard.type(await suite.sink.otpFor(email));
      await page.keyboard.press('Enter');
      await page.getByText('Your e-mail address is verified. Sign in to continue.').waitFor();
      recorded.assertClean('keyboard sign-up');
    } finally {
      await recorded.close();
    }
  });

  it('sends a new code once a minute, and says so when asked again', async () => {
    const partner = await newPartner(suite, 'registered');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await page.goto(`/dashboard/verify?email=${encodeURIComponent(partner.email)}`);
      await page.getByRole('button', { name: 'Send a new code' }).click();
      await page.getByText(`A new code is on its way to ${partner.email}.`).waitFor();
      await suite.sink.waitForMail(partner.email, 2);
      await page.getByRole('button', { name: 'Send a new code' }).click();
      await page
        .getByText(/A new code can be sent once a minute\. Try again in (\d+ seconds?|1 minute)\./)
        .waitFor();
      await checkPage(page, 'verify-resend-limit-1280');

      // The old code died with the new one: the latest code verifies.
      await page.getByLabel('6-digit code').fill(suite.sink.latestCode(partner.email)!);
      await page.getByRole('button', { name: 'Verify e-mail address' }).click();
      await page.getByText('Your e-mail address is verified.').waitFor();
      recorded.assertClean('resend');
    } finally {
      await recorded.close();
    }
  });

  it('resets a forgotten password with the e-mailed code, then signs in with the new one', async () => {
    const partner = await newPartner(suite, 'verified');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    const newPassword = 'Harmattan-Ledger-Dawn-77';
    try {
      await page.goto('/dashboard/sign-in');
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
      await checkPage(page, 'forgot-password-1280');
      await page.getByLabel('E-mail address').fill(partner.email);
      await page.getByRole('button', { name: 'Send reset code' }).click();
      await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();

      await page.getByLabel('6-digit code').fill(await suite.sink.otpFor(partner.email, 2, 'password reset'));
      await page.getByLabel('New password', { exact: true }).fill(newPassword);
      await page.getByLabel('Confirm new password').fill(newPassword);
      await checkPage(page, 'reset-password-1280');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('Your password has been changed').waitFor();
      assert.equal(await page.getByLabel('E-mail address').inputValue(), partner.email);

      await page.getByLabel('Password').fill(newPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
      recorded.assertClean('password reset');
    } finally {
      await recorded.close();
    }
  });

  it('sends a user whose session ended to sign in, then back to the page they were on', async () => {
    const partner = await newPartner(suite, 'verified');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await page.goto('/dashboard/developers/api-keys');
      // Not signed in: sign-in first, then the page asked for.
      await page.getByRole('heading', { level: 1, name: 'Partner dashboard' }).waitFor();
      await signInThroughForm(page, partner);
      await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard/developers/api-keys');
      // The page's own read must be answered before the clock moves: one still in flight would be
      // refused and sign the user out before the click below (seen under CI load).
      await page.getByRole('grid', { name: 'API keys' }).waitFor();

      // The session's 2 hours pass on the server; the next request of the page is refused.
      suite.t.clock.advance(2 * 60 * 60 * 1000 + 1000);
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByText('Your session ended, so you were signed out.').waitFor();
      const url = new URL(page.url());
      assert.equal(url.pathname, '/dashboard/sign-in');
      assert.equal(url.searchParams.get('next'), '/settings/users');
      await checkPage(page, 'session-ended-1280');
      await signInThroughForm(page, partner);
      await page.getByRole('heading', { level: 2, name: 'Users' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard/settings/users');

      // Ended again, then a reload of another page: the same way round.
      suite.t.clock.advance(2 * 60 * 60 * 1000 + 1000);
      await page.goto('/dashboard/accounts?status=active');
      await page.getByText('Your session ended, so you were signed out.').waitFor();
      await signInThroughForm(page, partner);
      await page.getByRole('heading', { level: 1, name: 'Virtual accounts' }).waitFor();
      assert.equal(
        `${new URL(page.url()).pathname}${new URL(page.url()).search}`,
        '/dashboard/accounts?status=active',
      );
      assert.ok(
        recorded.apiRefusals.every((line) => / 401 /.test(line)),
        recorded.apiRefusals.join('\n'),
      );
      recorded.assertClean('ended session');
    } finally {
      await recorded.close();
    }
  });

  it('refuses a state change that carries the session cookie but not the X-CSRF-Token header (403)', async () => {
    const partner = await newPartner(suite, 'verified');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await signInThroughForm(page, partner);
      await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();

      // page.request shares the page's cookies: the session cookie goes along, the header does not.
      const attempts: Array<Record<string, string>> = [{}, { origin: suite.t.url }];
      for (const headers of attempts) {
        const forged = await page.request.put(ENVIRONMENT, { data: { environment: 'sandbox' }, headers });
        assert.equal(forged.status(), 403);
        assert.equal(((await forged.json()) as { error_code: string }).error_code, 'CSRF_REJECTED');
      }
      const read = await page.request.get('/baas/api/v1/client/onboarding/session');
      assert.equal(read.status(), 200, 'reads need no anti-forgery proof');

      // The page's own state changes carry it: the profile saves.
      await page.getByRole('link', { name: 'Onboarding', exact: true }).click();
      const profile = page.locator('#business-profile');
      await profile.getByLabel('Registered address').fill('1 Broad Street, Lagos');
      await profile.getByLabel('Legal business name').fill('Acme Payments Limited');
      await profile.getByLabel('Registration number').fill('BN1234');
      await profile.getByRole('button', { name: 'Business type' }).click();
      await page.getByRole('option', { name: 'Sole proprietorship' }).click();
      await profile.getByRole('button', { name: 'Save business profile' }).click();
      await profile.getByText('Business profile saved.').waitFor();
      recorded.assertClean('CSRF');
    } finally {
      await recorded.close();
    }
  });

  it('signs out: the cookie is gone and signed-in pages send to sign-in', async () => {
    const partner = await newPartner(suite, 'verified');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await signInThroughForm(page, partner);
      await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      const cookies = await recorded.context.cookies();
      assert.equal(
        cookies.find((cookie) => cookie.name === 'baas_dashboard'),
        undefined,
      );
      await page.goto('/dashboard/overview');
      await page.getByRole('heading', { level: 1, name: 'Partner dashboard' }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
      recorded.assertClean('sign-out');
    } finally {
      await recorded.close();
    }
  });

  it('checks files before uploading, explains a failed identity check, and takes a corrected BVN with the ID as a link', async () => {
    const partner = await newPartner(suite, 'verified');
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await page.goto('/dashboard/onboarding');
      await page.getByRole('heading', { level: 1, name: 'Partner dashboard' }).waitFor();
      await signInThroughForm(page, partner);
      await page.getByRole('heading', { level: 1, name: 'Onboarding' }).waitFor();

      const representative = page.locator('#representative');
      // A file over 5 MB, and a file that only claims to be a PDF, never leave the page.
      const picker = representative.getByRole('button', { name: 'Choose file: ID document' });
      await pickFile(page, picker, {
        name: 'scan.png',
        mimeType: 'image/png',
        buffer: fileOfSize(5 * MIB + 1),
      });
      await representative.getByText('scan.png is larger than 5.0 MB, the most a document may be.').waitFor();
      await pickFile(page, picker, {
        name: 'id.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('MZ not a pdf'),
      });
      await representative.getByText('id.pdf is not a PDF, JPEG or PNG file.').waitFor();

      await representative.getByLabel('First name').fill('Ada');
      await representative.getByLabel('Last name').fill('Obi');
      await representative.getByLabel('E-mail address').fill('ada.obi@acme.ng');
      await representative.getByLabel('Phone number').fill('+2348031234567');
      await fillDate(dateField(representative, 'Date of birth'), '1985-04-12');
      await representative.getByText('Female', { exact: true }).click();
      await choose(representative, /Role in the business/, 'Company secretary');
      await representative.getByLabel('BVN').fill('12345678901');
      await choose(representative, /ID type/, 'International passport');
      await representative.getByLabel('Residential address').fill('3 Bourdillon Road, Ikoyi, Lagos');
      await representative.getByRole('button', { name: 'Give a link instead' }).click();
      await representative.getByLabel('ID document link').fill('https://files.acme.ng/ids/ada-obi.pdf');
      await representative.getByRole('button', { name: 'Save and verify identity' }).click();

      await representative.getByText('Ada Obi is saved, but the identity check did not pass.').waitFor();
      await representative.getByText('BVN not found: check the number and try again.').waitFor();
      await representative.locator('.badge', { hasText: 'KYC not passed' }).waitFor();
      await checkPage(page, 'onboarding-kyc-failed-1280');

      // The form stays filled: correcting the BVN is enough.
      await representative.getByLabel('BVN').fill('22123456789');
      await representative.getByRole('button', { name: 'Save and verify identity' }).click();
      await representative.getByText('Ada Obi is saved and their identity check passed.').waitFor();
      await representative.locator('.badge', { hasText: 'Done' }).waitFor();
      recorded.assertClean('representative');
    } finally {
      await recorded.close();
    }
  });

  it('answers an unknown address of the app with a page of its own', async () => {
    const recorded = await openDashboard(browser, suite.t.url);
    const { page } = recorded;
    try {
      await page.goto('/dashboard/no-such-page');
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      assert.equal(await page.title(), 'Page not found · Partner dashboard');
      await checkPage(page, 'not-found-1280');
      recorded.assertClean('not found');
    } finally {
      await recorded.close();
    }
  });

  it('fits the signed-out pages in 375 px, with no serious axe violation', async () => {
    const recorded = await openDashboard(browser, suite.t.url, { width: 375 });
    const { page } = recorded;
    try {
      for (const [path, heading, name] of [
        ['/dashboard/sign-in', 'Partner dashboard', 'sign-in-375'],
        ['/dashboard/sign-up', 'Create your partner account', 'sign-up-375'],
        ['/dashboard/verify?email=ada%40acme.ng', 'Verify your e-mail address', 'verify-375'],
        ['/dashboard/forgot-password', 'Reset your password', 'forgot-password-375'],
        ['/dashboard/reset-password?email=ada%40acme.ng', 'Choose a new password', 'reset-password-375'],
      ] as const) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await assertNoOverflow(page, path);
        await checkPage(page, name);
      }
      recorded.assertClean('signed-out pages at 375 px');
    } finally {
      await recorded.close();
    }
  });
});
