import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { launchBrowser } from '../support/browser.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import { MY_SECOND_FACTOR, SECURITY_SETTINGS } from '../support/paths.js';
import { enrolSecondFactor } from '../support/second-factor.js';
import { nextTotpStep, totp } from '../support/totp.js';
import { addUser, type DashboardUser } from '../support/users.js';
import {
  checkPage,
  type DashboardPage,
  focused,
  openDashboard,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * A dashboard user's second factor (docs/partner-guide.md, "Second factor"): the owner of an active
 * business, signed in without a factor, is refused a live account and told where to turn one on;
 * turns it on from the keyboard (the key read from the page, the code computed at the app's clock),
 * saves the recovery codes, resets a colleague's factor, cannot require everyone yet; signs out and in
 * with the code, and then requires a factor of everyone.
 */

describe('dashboard: a user’s second factor', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let recorded: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'active'>;
  let colleague: DashboardUser;
  let secret = '';

  before(async () => {
    browser = await launchBrowser();
    partner = await newPartner(suite, 'active');
    colleague = await addUser(suite, partner.token, 'finance');
    await enrolSecondFactor(suite.t, colleague.token);
    recorded = await openDashboard(browser, suite.t.url);
    page = recorded.page;
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    await recorded?.close();
    await browser?.close();
  });

  /** GET a partner API path with the page's own session cookie. */
  async function apiGet(path: string) {
    const response = await page.request.get(path);
    assert.equal(response.status(), 200, await response.text());
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  }

  it('refuses a live account to a session without a factor, and links to where to turn it on', async () => {
    await page.locator('label.switch').click();
    await page.getByText('You are working with live data.').waitFor();
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Virtual accounts' })
      .click();
    await page.getByRole('button', { name: 'Create account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a live account' });
    await dialog.getByLabel('First name').fill('Tunde');
    await dialog.getByLabel('Last name').fill('Bakare');
    await dialog.getByLabel('E-mail address').fill('tunde@example.com');
    await dialog.getByLabel('Phone number').fill('+2348090000000');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await dialog.getByText('This needs a sign-in with a second factor.', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    const notice = page.getByRole('alert').filter({ hasText: 'This needs a sign-in with a second factor.' });
    await notice.getByText('then sign out and sign in again with its code').waitFor();
    await checkPage(page, 'second-factor-required-1280');
    await notice.getByRole('link', { name: 'Turn on your second factor in Settings → Users' }).click();
    await page.getByRole('heading', { level: 3, name: 'Your second factor' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/settings/users');
    assert.equal(new URL(page.url()).hash, '#second-factor');
    assert.equal(await focused(page), 'heading "Your second factor" [level=3]');
    assert.equal(await notice.count(), 0, 'the notice gives way to the card it links to');
  });

  it('turns the factor on from the keyboard and shows the recovery codes once', async () => {
    const card = page.getByRole('region', { name: 'Your second factor' });
    await card.getByText('Signing in asks for your password only.').waitFor();
    await card.getByRole('button', { name: 'Turn on' }).focus();
    await page.keyboard.press('Enter');
    await card.getByRole('heading', { name: 'Connect your authenticator app' }).waitFor();
    assert.equal(await focused(page), 'heading "Connect your authenticator app" [level=4]');

    const shown = await card.locator('.authenticator-key__value code').innerText();
    assert.match(shown, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the key in groups of four');
    secret = shown.replace(/\s/g, '');
    const link = card.getByRole('link', { name: 'Open in an authenticator app on this device' });
    const otpauth = new URL((await link.getAttribute('href')) ?? '');
    assert.equal(otpauth.protocol, 'otpauth:');
    assert.equal(otpauth.searchParams.get('secret'), secret);
    assert.equal(otpauth.searchParams.get('issuer'), 'BaaS Dashboard');
    await card
      .getByRole('img', { name: `QR code to add ${partner.email} to an authenticator app` })
      .waitFor();
    await checkPage(page, 'second-factor-authenticator-1280');
    await card.getByRole('heading', { name: 'Connect your authenticator app' }).focus();

    // From the heading, Tab to the code field (past the copy button and the link).
    for (let tab = 0; tab < 6 && (await focused(page)) !== 'textbox "6-digit code from the app"'; tab++) {
      await page.keyboard.press('Tab');
    }
    assert.equal(await focused(page), 'textbox "6-digit code from the app"');
    await page.keyboard.type(totp(secret, suite.t.clock.now()));
    await page.keyboard.press('Enter');

    await card.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    assert.equal(await focused(page), 'heading "Save your recovery codes" [level=4]');
    assert.equal(await card.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count(), 10);
    await card.getByText('This session stays as it was.', { exact: false }).waitFor();
    await card.getByRole('button', { name: 'Download as a text file' }).waitFor();
    await checkPage(page, 'second-factor-recovery-codes-1280');
    await card.getByRole('checkbox', { name: 'I have saved my recovery codes' }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'button "Done"');
    await page.keyboard.press('Enter');
    await card.getByText('Your second factor is on. Your next sign-in asks for a code.').waitFor();
    await card.getByText('This session was made without it: sign in again to use it here.').waitFor();
    await card.getByRole('button', { name: 'Turn off' }).waitFor();
    const status = await apiGet(MY_SECOND_FACTOR);
    assert.equal(status.enabled, true);
    assert.equal(status.this_session, false);
  });

  it('resets a colleague’s factor after confirming, and offers no reset of one’s own', async () => {
    await page.locator('label.switch').click();
    await page.getByText('Test data only: nothing here moves real money.').waitFor();
    const users = page.getByRole('grid', { name: 'Users' });
    const mine = users.getByRole('row').filter({ hasText: partner.email });
    await mine.waitFor();
    assert.equal(await mine.getByRole('button', { name: /Reset second factor/ }).count(), 0);
    await users.getByRole('button', { name: `Reset second factor of ${colleague.name}` }).click();
    const confirm = page.getByRole('alertdialog', { name: `Reset the second factor of ${colleague.name}?` });
    await checkPage(page, 'second-factor-reset-1280');
    await confirm.getByRole('button', { name: 'Reset second factor' }).click();
    await page
      .getByText(`The second factor of ${colleague.name} was reset: they sign in with their password alone.`)
      .waitFor();
    const theirs = await suite.t.api.get(MY_SECOND_FACTOR, { token: colleague.token });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(theirs.body.data.enabled, false);
  });

  it('cannot require everyone from a session without a factor, and says why', async () => {
    await page.getByRole('tablist', { name: 'Settings' }).getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('heading', { level: 2, name: 'Security' }).waitFor();
    const group = page.getByRole('radiogroup', { name: 'Second factor required for' });
    assert.equal(await group.getByRole('radio', { name: 'Live money actions (default)' }).isChecked(), true);
    await group.getByText('Everyone, for everything').click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('alert')
      .getByText('needs your own session to be made with one, so that you cannot lock yourself out', {
        exact: false,
      })
      .waitFor();
    await checkPage(page, 'security-refused-1280');
    assert.equal((await apiGet(SECURITY_SETTINGS)).second_factor, 'live_money');
  });

  it('signs in with password and code, then requires a factor of everyone', async () => {
    nextTotpStep(suite.t.clock);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await signInThroughForm(page, partner);
    await page.getByLabel('Authentication code').fill(totp(secret, suite.t.clock.now()));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
    assert.equal((await apiGet(MY_SECOND_FACTOR)).this_session, true);

    await page.goto('/dashboard/settings/security');
    const group = page.getByRole('radiogroup', { name: 'Second factor required for' });
    await group.getByRole('radio', { name: 'Live money actions (default)' }).focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await group.getByRole('radio', { name: 'Everyone, for everything' }).isChecked(), true);
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .getByText('Saved: every user needs a second factor for everything in this dashboard.')
      .waitFor();
    await checkPage(page, 'security-everyone-1280');
    assert.equal((await apiGet(SECURITY_SETTINGS)).second_factor, 'everyone');

    // While everyone needs one, the owner's own factor cannot be turned off.
    await page.getByRole('tablist', { name: 'Settings' }).getByRole('tab', { name: 'Users' }).click();
    const card = page.getByRole('region', { name: 'Your second factor' });
    await card.getByRole('button', { name: 'Turn off' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn off your second factor?' });
    await dialog.getByLabel('Your password').fill(partner.password);
    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await dialog.getByText('Your business requires a second factor for everyone', { exact: false }).waitFor();
    await checkPage(page, 'second-factor-enforced-1280');
    await page.keyboard.press('Escape');
    assert.equal((await apiGet(MY_SECOND_FACTOR)).enabled, true);
    recorded.assertClean('the second factor pages');
  });
});
