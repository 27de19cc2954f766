import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { safeReturnPath, signInPath } from '../../web/src/lib/return-path.js';

// Both apps' lists of signed-out pages, as the apps pass them.
const CONSOLE = ['/sign-in', '/setup'];
const DASHBOARD = ['/sign-in', '/sign-up', '/verify', '/forgot-password', '/reset-password'];

describe("the web apps' return path after sign-in", () => {
  it('is a path of the app with its query, as the address bar had it', () => {
    for (const path of [
      '/',
      '/review',
      '/review?show=all',
      '/partners/42',
      '/audit?company_id=7&action=document.rejected&actor_type=operator',
      '/accounts?email=ada%40acme.ng&created_from=2026-01-01',
    ]) {
      assert.equal(safeReturnPath(path, CONSOLE), path, path);
    }
  });

  it('never leads to another site, whatever a URL parser makes of it', () => {
    for (const next of [
      '//evil.example',
      '//evil.example/review',
      '/\\evil.example',
      '/\\/evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      ' /review',
      'https://evil.example/review',
      'javascript:alert(1)',
      'review',
      '',
      null,
    ]) {
      assert.equal(safeReturnPath(next, CONSOLE), null, JSON.stringify(next));
    }
  });

  it('carries no fragment: a set-up link, a way back to sign-in, or an empty one', () => {
    for (const next of ['/setup#token=abc', '/review#token=abc', '/sign-in#', '/review#', '/partners/42#x']) {
      assert.equal(safeReturnPath(next, CONSOLE), null, next);
    }
  });

  it('is no signed-out page, however it is spelled', () => {
    for (const next of [
      '/sign-in',
      '/sign-in?next=%2Freview',
      '/sign-in/',
      '/SIGN-IN',
      '/setup',
      '/review/../sign-in',
      '/./sign-in',
      '/%2e%2e/sign-in',
    ]) {
      assert.equal(safeReturnPath(next, CONSOLE), null, next);
    }
    for (const page of DASHBOARD) {
      assert.equal(safeReturnPath(page, DASHBOARD), null, page);
      assert.equal(safeReturnPath(`${page}?email=ada%40acme.ng`, DASHBOARD), null, page);
    }
    assert.equal(safeReturnPath('/overview', DASHBOARD), '/overview');
  });

  it('stays on this origin and carries no fragment, for any input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((tail) => `/${tail}`),
          fc.webUrl().map((url) => url.replace(/^[a-z]+:/, '')),
        ),
        (next) => {
          const path = safeReturnPath(next, CONSOLE);
          if (path === null) return;
          const url = new URL(path, 'https://console.test/');
          assert.equal(url.origin, 'https://console.test');
          assert.ok(!path.includes('#'), path);
          assert.ok(!CONSOLE.includes(url.pathname.replace(/\/+$/, '')), path);
        },
      ),
    );
  });

  it('goes into the sign-in link only when it is a place to return to', () => {
    assert.equal(
      signInPath('/partners/42?tab=documents', CONSOLE),
      '/sign-in?next=%2Fpartners%2F42%3Ftab%3Ddocuments',
    );
    assert.equal(signInPath('/', CONSOLE), '/sign-in');
    assert.equal(signInPath(null, CONSOLE), '/sign-in');
    assert.equal(signInPath('/verify?email=ada%40acme.ng', DASHBOARD), '/sign-in');
    assert.equal(signInPath('//evil.example', DASHBOARD), '/sign-in');
  });
});
