import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { registerHttpPlatform } from '../../src/platform/http/http-platform.js';
import { registerWebApps, WEB_DIST } from '../../src/platform/http/web-apps.js';
import { useApp } from '../support/app.js';
import { assertAccessible, launchBrowser, newPage, screenshot } from '../support/browser.js';

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** What a sign-in page may load of JavaScript, gzipped (as web/scripts/build.mjs compresses it). */
const SIGN_IN_BUDGET_BYTES = 150_000;

const APPS = [
  // Both apps' pages are behind sign-in, except the console's set-up page (here without its link's
  // token) and the dashboard's account pages.
  {
    name: 'console',
    title: 'Operator console',
    deepRoute: '/console/setup',
    deepHeading: 'This set-up link is incomplete',
  },
  {
    name: 'dashboard',
    title: 'Partner dashboard',
    deepRoute: '/dashboard/forgot-password',
    deepHeading: 'Reset your password',
  },
] as const;

/** Both apps ask for their session on load (401 before sign-in) and sign in for real (401 on a wrong password). */
const handled = (_app: string) => [401];

/** The src/href of every script, stylesheet, preload and icon the page's HTML names. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
}

/** What has keyboard focus: its role and accessible name, as a screen reader announces it. */
async function focused(page: Page): Promise<string> {
  const element = page.locator(':focus');
  if ((await element.count()) === 0) return 'nothing';
  // `- textbox "E-mail address" [invalid]: typed text`, then its children: role, name and states.
  const line = (await element.ariaSnapshot()).split('\n')[0] ?? '';
  return /^- (\w+ "[^"]*"(?: \[[^\]]*\])*)/.exec(line)?.[1] ?? line;
}

describe('web apps', () => {
  const context = useApp('sqlite');
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it("keeps pdf.js out of the console's first load: its chunk and worker come with a PDF preview, as JavaScript", async () => {
    const assets = readdirSync(path.join(WEB_DIST, 'console', 'assets'));
    const chunk = assets.find((name) => /^pdf-preview-[\w-]{8}\.js$/.test(name));
    const worker = assets.find((name) => /^pdf\.worker\.min-[\w-]{8}\.mjs$/.test(name));
    assert.ok(chunk && worker, assets.join(', '));
    const html = await (await fetch(`${context.t.url}/console`)).text();
    for (const url of assetUrls(html).filter((url) => url.endsWith('.js'))) {
      const script = await (await fetch(`${context.t.url}${url}`)).text();
      // A message of pdf.js's own: its code is not in what the page loads first.
      assert.ok(!script.includes('GlobalWorkerOptions.workerSrc'), `${url} carries pdf.js`);
    }
    // A module worker's script must be served as JavaScript; it is large, so compressed too.
    const response = await fetch(`${context.t.url}/console/assets/${worker}`, {
      headers: { 'accept-encoding': 'br' },
    });
    assert.equal(response.status, 200);
    assert.match(String(response.headers.get('content-type')), /^(text|application)\/javascript\b/);
    assert.equal(response.headers.get('content-encoding'), 'br');
    assert.equal(response.headers.get('cache-control'), IMMUTABLE);
    assert.ok((await response.arrayBuffer()).byteLength > 0);
  });

  for (const app of APPS) {
    describe(`/${app.name}`, () => {
      it('answers its page with the strict CSP, the security headers and no-cache', async () => {
        const response = await fetch(`${context.t.url}/${app.name}`);
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(response.headers.get('content-security-policy'), PAGE_CSP);
        assert.equal(response.headers.get('cache-control'), 'no-cache');
        assert.equal(response.headers.get('x-frame-options'), 'DENY');
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
        assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
        assert.ok(response.headers.get('strict-transport-security'));
        assert.ok(response.headers.get('etag'), 'revalidated by ETag');
      });

      it('has no inline script, style or event handler in its HTML', async () => {
        const html = await (await fetch(`${context.t.url}/${app.name}`)).text();
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
        assert.ok(scripts.length > 0);
        for (const [, attributes, content] of scripts) {
          assert.match(attributes!, /\bsrc="\/[^"]+"/, 'every script is a file');
          assert.equal(content!.trim(), '', 'no script has inline content');
        }
        assert.doesNotMatch(html, /<style\b/i);
        assert.doesNotMatch(html, /\sstyle=/i);
        assert.doesNotMatch(html, /\son[a-z]+=/i);
      });

      it('serves its assets under hashed names, cached as immutable, compressed when asked', async () => {
        const html = await (await fetch(`${context.t.url}/${app.name}`)).text();
        const urls = assetUrls(html);
        assert.ok(urls.some((url) => url.endsWith('.js')) && urls.some((url) => url.endsWith('.css')));
        for (const url of urls) {
          assert.match(url, new RegExp(`^/${app.name}/assets/[\\w.-]+-[\\w-]{8}\\.(js|css|svg)$`), url);
          const response = await fetch(`${context.t.url}${url}`, { headers: { 'accept-encoding': 'br' } });
          assert.equal(response.status, 200, url);
          assert.equal(response.headers.get('cache-control'), IMMUTABLE, url);
          assert.equal(response.headers.get('content-encoding'), 'br', url);
          assert.equal(response.headers.get('vary'), 'accept-encoding', url);
          assert.equal(response.headers.get('content-security-policy'), PAGE_CSP, url);
          assert.ok((await response.arrayBuffer()).byteLength > 0);
        }
      });

      it('answers an unknown asset and a way out of the assets folder with 404 NOT_FOUND, not stored', async () => {
        for (const asset of [
          'index-00000000.js',
          '%2e%2e/%2e%2e/build-stamp.json',
          '..%2Findex.html',
          '.env',
        ]) {
          const response = await fetch(`${context.t.url}/${app.name}/assets/${asset}`);
          assert.equal(response.status, 404, asset);
          assert.equal(response.headers.get('cache-control'), 'no-store');
          const body = (await response.json()) as Record<string, unknown>;
          assert.equal(body['status'], 'error');
          assert.equal(body['error_code'], 'NOT_FOUND');
        }
      });

      it('serves the app for a client-side route, which renders that page', async () => {
        const response = await fetch(`${context.t.url}${app.deepRoute}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('cache-control'), 'no-cache');
        assert.equal(await response.text(), await (await fetch(`${context.t.url}/${app.name}`)).text());

        const recorded = await newPage(browser, context.t.url, { handledStatuses: handled(app.name) });
        try {
          await recorded.page.goto(app.deepRoute);
          await recorded.page.getByRole('heading', { level: 1, name: app.deepHeading }).waitFor();
          assert.equal(await recorded.page.title(), `${app.deepHeading} · ${app.title}`);
          assert.equal(await recorded.page.locator('main').count(), 1);
          recorded.assertClean(app.deepRoute);
        } finally {
          await recorded.close();
        }
      });

      it(`loads at most ${SIGN_IN_BUDGET_BYTES / 1000} kB of gzipped JavaScript before the visitor can sign in`, async () => {
        const recorded = await newPage(browser, context.t.url, { handledStatuses: handled(app.name) });
        // Every script the browser fetched, as the network log has it.
        const scripts = new Set<string>();
        recorded.page.on('response', (response) => {
          const { pathname } = new URL(response.url());
          if (/\.m?js$/.test(pathname)) scripts.add(pathname);
        });
        try {
          await recorded.page.goto(`/${app.name}`);
          await recorded.page.getByRole('button', { name: 'Sign in' }).waitFor();
          const sizes = [...scripts].map((pathname) => {
            assert.match(pathname, new RegExp(`^/${app.name}/assets/[\\w.-]+$`));
            return { pathname, gzipped: statSync(path.join(WEB_DIST, `${pathname.slice(1)}.gz`)).size };
          });
          const total = sizes.reduce((sum, script) => sum + script.gzipped, 0);
          assert.ok(
            total <= SIGN_IN_BUDGET_BYTES,
            `${total} bytes of gzipped JavaScript:\n${sizes.map((script) => `  ${script.gzipped} ${script.pathname}`).join('\n')}`,
          );
          recorded.assertClean(`/${app.name} first load`);
        } finally {
          await recorded.close();
        }
      });

      for (const width of [1280, 375]) {
        it(`loads at ${width} px without a CSP violation, a console error or a serious axe violation`, async () => {
          const recorded = await newPage(browser, context.t.url, {
            width,
            handledStatuses: handled(app.name),
          });
          try {
            await recorded.page.goto(`/${app.name}`);
            await recorded.page.getByRole('heading', { level: 1, name: app.title }).waitFor();
            await recorded.page.getByRole('button', { name: 'Sign in' }).waitFor();
            if (app.name === 'console') {
              // The typed API client through TanStack Query, under connect-src 'self'.
              await recorded.page.getByText('Service status: operational').waitFor();
            }
            assert.equal(await recorded.page.title(), `Sign in · ${app.title}`);
            assert.equal(await recorded.page.locator('main').count(), 1);
            const overflow = await recorded.page
              .locator('html')
              .evaluate((html) => html.scrollWidth - html.clientWidth);
            assert.equal(overflow, 0, 'nothing wider than the viewport');
            await assertAccessible(recorded.page, `/${app.name} at ${width} px`);
            const file = await screenshot(recorded.page, `${app.name}-sign-in-${width}`);
            assert.ok(existsSync(file));
            recorded.assertClean(`/${app.name} at ${width} px`);
          } finally {
            await recorded.close();
          }
        });
      }

      it('has no serious axe violation on a deep page, nor on the sign-in form showing its errors', async () => {
        const recorded = await newPage(browser, context.t.url, { handledStatuses: handled(app.name) });
        try {
          await recorded.page.goto(app.deepRoute);
          await recorded.page.getByRole('heading', { level: 1, name: app.deepHeading }).waitFor();
          await assertAccessible(recorded.page, app.deepRoute);
          await screenshot(recorded.page, `${app.name}-deep-page-1280`);

          await recorded.page.goto(`/${app.name}`);
          await recorded.page.getByRole('button', { name: 'Sign in' }).click();
          await recorded.page.getByText('Enter your e-mail address.').waitFor();
          await assertAccessible(recorded.page, `/${app.name} with validation errors`);
          await screenshot(recorded.page, `${app.name}-sign-in-errors-1280`);
          recorded.assertClean(`/${app.name} deep page and errors`);
        } finally {
          await recorded.close();
        }
      });

      it('signs in with the keyboard alone: Tab reaches the fields in order, Enter submits', async () => {
        const recorded = await newPage(browser, context.t.url, { handledStatuses: handled(app.name) });
        const { page } = recorded;
        try {
          // The sign-in page itself: /dashboard sends a signed-out visitor there, moving focus to <main>.
          await page.goto(app.name === 'console' ? '/console' : '/dashboard/sign-in');
          await page.getByRole('button', { name: 'Sign in' }).waitFor();

          const order: string[] = [];
          for (let i = 0; i < 3; i += 1) {
            await page.keyboard.press('Tab');
            order.push(await focused(page));
          }
          assert.deepEqual(order, [
            'link "Skip to main content"',
            `link "BaaS ${app.title}"`,
            'textbox "E-mail address"',
          ]);

          // Submitting empty: the errors show and focus goes back to the first invalid field.
          await page.keyboard.press('Tab');
          assert.equal(await focused(page), 'textbox "Password"');
          await page.keyboard.press('Tab');
          assert.equal(await focused(page), 'button "Sign in"');
          await page.keyboard.press('Enter');
          await page.getByText('Enter your e-mail address.').waitFor();
          await page.getByText('Enter your password.').waitFor();
          assert.equal(await focused(page), 'textbox "E-mail address" [invalid]');

          await page.keyboard.type('not-an-e-mail');
          await page.keyboard.press('Enter');
          await page.getByText('Enter an e-mail address like name@example.com.').waitFor();
          assert.equal(await focused(page), 'textbox "E-mail address" [invalid]');

          await page.keyboard.press('ControlOrMeta+A');
          await page.keyboard.type('ada@acme.ng');
          await page.keyboard.press('Tab');
          assert.match(await focused(page), /^textbox "Password"/);
          await page.keyboard.type('Kobo-Ledger-Sunrise-42');
          await page.keyboard.press('Enter');

          // Both apps sign in for real: an unknown account is told so, beside the form.
          await page.getByRole('alert').getByText('The e-mail address or password is incorrect.').waitFor();
          assert.equal(await page.getByText('Enter your e-mail address.').count(), 0);
          await screenshot(page, `${app.name}-sign-in-submitted-1280`);
          recorded.assertClean(`/${app.name} keyboard sign-in`);
        } finally {
          await recorded.close();
        }
      });

      it('submits with the first click once the errors are corrected: an error goes as its field is fixed', async () => {
        const recorded = await newPage(browser, context.t.url, { handledStatuses: handled(app.name) });
        const { page } = recorded;
        try {
          await page.goto(app.name === 'console' ? '/console' : '/dashboard/sign-in');
          const signIn = page.getByRole('button', { name: 'Sign in' });
          await signIn.click();
          await page.getByText('Enter your e-mail address.').waitFor();
          await page.getByText('Enter your password.').waitFor();

          // Focus stays in each field: its error goes as it is corrected, not when focus leaves.
          await page.getByLabel('E-mail address').fill('ada@acme.ng');
          await page.getByText('Enter your e-mail address.').waitFor({ state: 'detached' });
          await page.getByLabel('Password').fill('Kobo-Ledger-Sunrise-42');
          await page.getByText('Enter your password.').waitFor({ state: 'detached' });
          assert.equal(await focused(page), 'textbox "Password"');

          // So nothing moves between pressing the button and releasing it: one click signs in.
          await signIn.click();
          await page.getByRole('alert').getByText('The e-mail address or password is incorrect.').waitFor();
          recorded.assertClean(`/${app.name} corrected form`);
        } finally {
          await recorded.close();
        }
      });

      it('moves focus to the new page on a client-side navigation', async () => {
        const recorded = await newPage(browser, context.t.url, { handledStatuses: handled(app.name) });
        const { page } = recorded;
        try {
          // Signed-out pages link to each other: the console's set-up → sign-in, the dashboard's
          // sign-in → sign-up.
          await page.goto(app.name === 'console' ? '/console/setup' : `/${app.name}`);
          const link = page.getByRole('link', {
            name: app.name === 'console' ? 'Go to sign-in' : 'Create an account',
          });
          await link.focus();
          await page.keyboard.press('Enter');
          await page
            .getByRole('heading', {
              level: 1,
              name: app.name === 'console' ? 'Operator console' : 'Create your partner account',
            })
            .waitFor();
          assert.equal(await page.locator(':focus').getAttribute('id'), 'main');
          assert.equal(
            new URL(page.url()).pathname,
            app.name === 'console' ? '/console/sign-in' : '/dashboard/sign-up',
          );
          recorded.assertClean(`/${app.name} navigation`);
        } finally {
          await recorded.close();
        }
      });
    });
  }

  it('answers a path that is neither an app nor an API route with the API 404, not an app', async () => {
    const response = await fetch(`${context.t.url}/consoles`);
    assert.equal(response.status, 404);
    assert.equal(
      response.headers.get('content-security-policy'),
      "default-src 'none'; frame-ancestors 'none'",
    );
  });
});

describe('web apps not built', () => {
  it('answers 503 SERVICE_UNAVAILABLE naming `npm run build` and logs a warning, instead of failing to start', async () => {
    assert.ok(
      existsSync(path.join(WEB_DIST, 'console', 'index.html')),
      'the real build is where the server looks',
    );
    const empty = mkdtempSync(path.join(tmpdir(), 'baas-web-'));
    const logs: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        logs.push(String(chunk));
        callback();
      },
    });
    const app = Fastify({ logger: { level: 'warn', stream } });
    try {
      registerHttpPlatform(app, { docsPrefix: '/docs' });
      await registerWebApps(app, { distDir: empty });
      for (const url of ['/console', '/dashboard/accounts/1']) {
        const response = await app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 503, url);
        assert.equal(response.headers['content-security-policy'], PAGE_CSP);
        assert.equal(response.headers['cache-control'], 'no-store');
        const body = response.json() as Record<string, unknown>;
        assert.equal(body['error_code'], 'SERVICE_UNAVAILABLE');
        assert.match(String(body['message']), /npm run build/);
      }
      const warnings = logs.map((line) => JSON.parse(line) as { level: number; msg: string });
      assert.deepEqual(
        warnings.filter((line) => line.level === 40).map((line) => line.msg.split(':')[0]),
        ['the web app /console is not built', 'the web app /dashboard is not built'],
      );
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
