import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { useApp } from '../support/app.js';
import { launchBrowser } from '../support/browser.js';
import { STRONG_PASSWORD, uniqueEmail } from '../support/factories.js';
import { newPartner, type PartnerAt } from '../support/partners.js';
import type { SmtpSink } from '../support/smtp-sink.js';
import {
  checkPage,
  choose,
  type DashboardPage,
  openDashboard,
  signInThroughForm,
} from './dashboard-helpers.js';

/*
 * Dashboard users: the owner invites a viewer and a developer from Settings → Users; each opens the
 * link of their e-mail (read from the SMTP sink) in a browser context of their own, sets a password
 * and lands signed in, on a dashboard limited to their role. Then the owner changes a role and
 * removes a user, whose next navigation ends at sign-in.
 */

/** The e-mail's text, its quoted-printable soft breaks and escapes undone, and any base64 part decoded. */
function mailText(raw: string): string {
  const quoted = raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const base64 = [
    ...raw.matchAll(/Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*\r?\n([A-Za-z0-9+/=\r\n]+)/gi),
  ].map((match) => Buffer.from((match[1] ?? '').replace(/\s/g, ''), 'base64').toString('utf8'));
  return [quoted, ...base64].join('\n');
}

/** The invitation link's path and fragment from the latest e-mail to `email`. */
async function invitationLink(sink: SmtpSink, email: string): Promise<string> {
  const mail = await sink.waitForMail(email);
  const token = /\/dashboard\/accept-invitation#token=([A-Za-z0-9_-]+)/.exec(mailText(mail.raw))?.[1];
  assert.ok(token, 'the e-mail carries the link with its token in the fragment');
  return `/dashboard/accept-invitation#token=${token}`;
}

describe('dashboard: users, invitations and roles', () => {
  const suite = useApp('sqlite');
  let browser: Browser;
  let owner: DashboardPage;
  let page: Page;
  let partner: PartnerAt<'active'>;
  const viewer = { email: uniqueEmail('viewer'), name: 'Vera Viewer' };
  const developer = { email: uniqueEmail('developer'), name: 'Dayo Developer' };
  const opened: DashboardPage[] = [];
  let viewerPage: Page;

  before(async () => {
    browser = await launchBrowser();
    partner = await newPartner(suite, 'active');
    owner = await openDashboard(browser, suite.t.url);
    page = owner.page;
    await signInThroughForm(page, partner);
    await page.getByRole('heading', { level: 1, name: 'Acme Payments Ltd' }).waitFor();
  });
  after(async () => {
    for (const other of opened) await other.close();
    await owner?.close();
    await browser?.close();
  });

  /** Opens the invitation link in a new browser context and accepts it with `name`. */
  async function accept(person: { email: string; name: string }, role: string): Promise<DashboardPage> {
    const link = await invitationLink(suite.sink, person.email);
    const invited = await openDashboard(browser, suite.t.url);
    opened.push(invited);
    const { page: invitedPage } = invited;
    await invitedPage.goto(link);
    await invitedPage.getByRole('heading', { level: 1, name: 'Join Acme Payments Ltd' }).waitFor();
    assert.equal(new URL(invitedPage.url()).hash, '', 'the token leaves the address bar');
    const card = invitedPage.getByRole('region', { name: 'Set up your sign-in' });
    await card.getByText(person.email).waitFor();
    await card.getByRole('definition').filter({ hasText: role }).first().waitFor();
    await invitedPage.getByLabel('Your name').fill(person.name);
    await invitedPage.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await invitedPage.getByLabel('Confirm password').fill(STRONG_PASSWORD);
    if (role === 'Viewer') await checkPage(invitedPage, 'accept-invitation-1280');
    await invitedPage.getByRole('button', { name: 'Accept and sign in' }).click();
    await invitedPage.getByRole('heading', { level: 1, name: 'Acme Payments Ltd', exact: true }).waitFor();
    assert.equal(new URL(invitedPage.url()).pathname, '/dashboard/overview');
    // The header names who is signed in and their role.
    const header = invitedPage.getByRole('banner');
    await header.getByText(person.name).waitFor();
    await header.getByText(`${role} · Acme Payments Ltd`).waitFor();
    return invited;
  }

  it('invites a viewer and a developer; each accepts the e-mailed link and sees the dashboard of their role', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Users' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/settings/users');
    const users = page.getByRole('grid', { name: 'Users' });
    await users
      .getByRole('row')
      .filter({ hasText: partner.email })
      .getByText('You', { exact: true })
      .waitFor();
    await page.getByText('No pending invitations.').waitFor();

    const invite = page.getByRole('region', { name: 'Invite a user' });
    for (const [person, role] of [
      [viewer, 'Viewer'],
      [developer, 'Developer'],
    ] as const) {
      await invite.getByLabel('E-mail address').fill(person.email);
      await choose(invite, /Role/, role);
      await invite
        .getByText(role === 'Viewer' ? 'Sees everything, changes nothing.' : /^API keys and webhooks/)
        .waitFor();
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText(`An invitation was sent to ${person.email}.`).waitFor();
      await page
        .getByRole('grid', { name: 'Pending invitations' })
        .getByRole('row')
        .filter({ hasText: person.email })
        .getByText(role, { exact: true })
        .waitFor();
    }
    await checkPage(page, 'users-1280');

    // The viewer: no API keys, no money actions, the lists read-only.
    const viewerDashboard = await accept(viewer, 'Viewer');
    viewerPage = viewerDashboard.page;
    await viewerPage.getByRole('link', { name: 'Developers' }).click();
    await viewerPage.getByRole('heading', { level: 2, name: /^Endpoint/ }).waitFor();
    assert.equal(new URL(viewerPage.url()).pathname, '/dashboard/developers/webhooks');
    assert.equal(await viewerPage.getByRole('tab', { name: 'API keys' }).count(), 0, 'no API keys tab');
    await viewerPage.getByText('Your role (Viewer) cannot change webhooks').waitFor();
    await viewerPage.getByRole('link', { name: 'Virtual accounts' }).click();
    await viewerPage.getByRole('heading', { level: 1, name: 'Virtual accounts' }).waitFor();
    await viewerPage.getByText('Your role (Viewer) cannot move money').waitFor();
    assert.equal(await viewerPage.getByRole('button', { name: 'Create account' }).count(), 0);
    await viewerPage.getByRole('link', { name: 'Settings', exact: true }).click();
    await viewerPage.getByRole('grid', { name: 'Users' }).getByText(partner.email).waitFor();
    assert.equal(await viewerPage.getByRole('region', { name: 'Invite a user' }).count(), 0);
    await viewerPage.getByText('Your role (Viewer) cannot invite or change users').waitFor();
    viewerDashboard.assertClean('viewer');

    // A used link says so.
    const again = await openDashboard(browser, suite.t.url);
    opened.push(again);
    await again.page.goto(await invitationLink(suite.sink, viewer.email));
    await again.page
      .getByRole('heading', { level: 1, name: 'This invitation link no longer works' })
      .waitFor();

    // The developer: API keys, and money in the sandbox.
    const developerDashboard = await accept(developer, 'Developer');
    const developerPage = developerDashboard.page;
    await developerPage.getByRole('link', { name: 'Developers' }).click();
    await developerPage.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
    await developerPage.getByRole('button', { name: 'Create API key' }).waitFor();
    await developerPage.getByRole('link', { name: 'Virtual accounts' }).click();
    await developerPage.getByRole('button', { name: 'Create account' }).waitFor();
    // In live, a developer's money actions go (the session's permissions are read again on the switch).
    await developerPage.locator('label.switch').click();
    await developerPage.getByText('You are working with live data.').waitFor();
    await developerPage.getByText('Developers move money in the sandbox only').waitFor();
    assert.equal(await developerPage.getByRole('button', { name: 'Create account' }).count(), 0);
    developerDashboard.assertClean('developer');

    await page.reload();
    await users
      .getByRole('row')
      .filter({ hasText: viewer.name })
      .getByText('Viewer', { exact: true })
      .waitFor();
    await users.getByRole('row').filter({ hasText: developer.name }).waitFor();
    await page.getByText('No pending invitations.').waitFor();
    await checkPage(page, 'users-accepted-1280');
  });

  it('changes a role, and removes a user whose next navigation ends at sign-in', async () => {
    const users = page.getByRole('grid', { name: 'Users' });
    await users.getByRole('button', { name: `Change role of ${developer.name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Change the role of ${developer.name}` });
    await choose(dialog, /Role/, 'Finance');
    await dialog.getByRole('button', { name: 'Save role' }).click();
    await page.getByText(`${developer.name} is now finance.`).waitFor();
    await users
      .getByRole('row')
      .filter({ hasText: developer.name })
      .getByText('Finance', { exact: true })
      .waitFor();

    await users.getByRole('button', { name: `Remove ${viewer.name}` }).click();
    const confirm = page.getByRole('alertdialog', { name: `Remove ${viewer.name}?` });
    await confirm.getByText('sessions end at once').waitFor();
    await confirm.getByText('API keys they created keep working until you revoke them').waitFor();
    await checkPage(page, 'users-remove-1280');
    await confirm.getByRole('button', { name: 'Remove user' }).click();
    await page.getByText(`${viewer.name} was removed and signed out.`).waitFor();
    assert.equal(await users.getByRole('row').filter({ hasText: viewer.name }).count(), 0);

    await viewerPage.getByRole('link', { name: 'Transfers' }).click();
    await viewerPage.getByText('Your session ended, so you were signed out.').waitFor();
    assert.equal(new URL(viewerPage.url()).pathname, '/dashboard/sign-in');
    owner.assertClean('owner');
  });

  it('lets a user turn an e-mail notification off from the keyboard; suspension e-mails stay on', async () => {
    const card = page.getByRole('region', { name: 'Your e-mail notifications' });
    const transfers = card.getByRole('checkbox', { name: /A live transfer fails/ });
    await transfers.waitFor();
    assert.equal(await transfers.isChecked(), true, 'every kind starts on');
    assert.equal(
      await card.getByRole('checkbox', { name: /Your business is suspended/ }).isDisabled(),
      true,
      'suspension e-mails cannot be turned off',
    );
    await transfers.focus();
    await page.keyboard.press('Space');
    await card.getByText('A live transfer fails: no e-mail.').waitFor();
    assert.equal(await transfers.isChecked(), false);
    await checkPage(page, 'users-notifications-1280');
    const saved = await suite.t.api.get('/baas/api/v1/services/partner/settings/users/me/notifications', {
      token: partner.token,
    });
    const kind = saved.body.data.find((item: { kind: string }) => item.kind === 'transfer_failed');
    assert.equal(kind.enabled, false, 'saved on the server');
    owner.assertClean('owner');
  });

  it('says so when an invitation link has expired', async () => {
    const late = uniqueEmail('late');
    const invite = page.getByRole('region', { name: 'Invite a user' });
    await invite.getByLabel('E-mail address').fill(late);
    await choose(invite, /Role/, 'Finance');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`An invitation was sent to ${late}.`).waitFor();
    const link = await invitationLink(suite.sink, late);
    // Last in the file: the owner's session ends with the 72 hours too.
    suite.t.clock.advance(72 * 60 * 60 * 1000 + 1000);
    const invited = await openDashboard(browser, suite.t.url);
    opened.push(invited);
    await invited.page.goto(link);
    await invited.page.getByRole('heading', { level: 1, name: 'This invitation has expired' }).waitFor();
    await invited.page.getByText('Ask the person who invited you to resend it.').waitFor();
    assert.equal(await invited.page.getByLabel('Your name').count(), 0, 'no form for an expired link');
    invited.assertClean('expired invitation');
  });
});
