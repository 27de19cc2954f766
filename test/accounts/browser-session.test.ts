import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, TEST_ENCRYPTION_KEY, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { customerBody, form, PDF_BYTES, STRONG_PASSWORD } from '../support/factories.js';
import { newPartner } from '../support/partners.js';
import { API_PREFIX, BUSINESS_INFO, CREATE_ACCOUNT, DOCUMENTS, LOGIN, LOGOUT } from '../support/paths.js';

const SESSION = `${API_PREFIX}/client/onboarding/session`;

/** The Set-Cookie attributes of a response, lower-cased, with the cookie's name and value. */
function setCookie(headers: Headers): { name: string; value: string; attributes: string[] } {
  const raw = headers.get('set-cookie');
  assert.ok(raw, 'a Set-Cookie header');
  const [pair, ...attributes] = raw.split(';').map((part) => part.trim());
  const [name, value] = pair!.split('=') as [string, string];
  return { name, value, attributes: attributes.map((attribute) => attribute.toLowerCase()) };
}

for (const dialect of DIALECTS) {
  describe(`dashboard browser sessions [${dialect.name}]`, { skip: dialect.skip }, () => {
    const suite = useApp(dialect.name);
    const origin = () => suite.t.url;

    async function cookieLogin() {
      const partner = await newPartner(suite, 'verified');
      const response = await suite.t.api.post(
        LOGIN,
        { email: partner.email, password: STRONG_PASSWORD, session: 'cookie' },
        { headers: { origin: origin() } },
      );
      assert.equal(response.status, 200, response.text);
      const cookie = setCookie(response.headers);
      return {
        partner,
        response,
        cookie,
        header: `${cookie.name}=${cookie.value}`,
        csrf: response.body.data.csrf_token as string,
      };
    }

    it('logs in into an HttpOnly, SameSite=Strict cookie and never shows the token to the page', async () => {
      const { response, cookie } = await cookieLogin();
      assert.equal(cookie.name, 'baas_dashboard');
      assert.ok(cookie.attributes.includes('httponly'));
      assert.ok(cookie.attributes.includes('samesite=strict'));
      assert.ok(cookie.attributes.includes('path=/'));
      assert.ok(cookie.attributes.includes('max-age=7200'));
      assert.ok(!cookie.attributes.includes('secure'), 'plain over http in development and tests');
      assert.equal(response.body.data.token, null);
      assert.equal(response.body.data.token_type, 'Cookie');
      assert.equal(response.body.data.environment, 'sandbox');
      assert.ok(!response.text.includes(cookie.value), 'the token is only in the cookie');
      assert.match(response.body.data.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    });

    it('refuses a cookie login from another site with 403 CSRF_REJECTED, and keeps bearer logins as they were', async () => {
      const partner = await newPartner(suite, 'verified');
      const foreign = await suite.t.api.post(
        LOGIN,
        { email: partner.email, password: STRONG_PASSWORD, session: 'cookie' },
        { headers: { origin: 'https://evil.example' } },
      );
      assertError(foreign, 403, 'CSRF_REJECTED');
      assert.equal(foreign.headers.get('set-cookie'), null);
      const bearer = await suite.t.api.post(LOGIN, { email: partner.email, password: STRONG_PASSWORD });
      assert.equal(bearer.status, 200, bearer.text);
      assert.equal(bearer.body.data.token_type, 'Bearer');
      assert.equal(typeof bearer.body.data.token, 'string');
      assert.equal(bearer.headers.get('set-cookie'), null);
    });

    it('reads with the cookie alone, and tells the page its anti-forgery token after a reload', async () => {
      const { header, csrf, partner } = await cookieLogin();
      const profile = await suite.t.api.get(BUSINESS_INFO, { headers: { cookie: header } });
      assert.equal(profile.status, 200, profile.text);
      assert.equal(profile.body.data.company_id, partner.companyId);
      const session = await suite.t.api.get(SESSION, { headers: { cookie: header } });
      assert.equal(session.status, 200, session.text);
      assert.equal(session.body.data.csrf_token, csrf);
      assert.equal(session.body.data.company_id, partner.companyId);
    });

    it('refuses a state change with the cookie but without X-CSRF-Token or from another origin, changing nothing', async () => {
      const { header, csrf } = await cookieLogin();
      const change = { legal_business_name: 'Forged Holdings Ltd' };
      const cases: Array<[string, Record<string, string>]> = [
        ['no token', { cookie: header, origin: origin() }],
        // The last character changed (one of 16 a 32-byte base64url token can end with: never itself).
        [
          'a wrong token',
          {
            cookie: header,
            origin: origin(),
            'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`,
          },
        ],
        ['no Origin', { cookie: header, 'x-csrf-token': csrf }],
        ['another Origin', { cookie: header, origin: 'https://evil.example', 'x-csrf-token': csrf }],
      ];
      for (const [what, headers] of cases) {
        assertError(await suite.t.api.put(BUSINESS_INFO, change, { headers }), 403, 'CSRF_REJECTED', {
          what,
        });
      }
      const profile = await suite.t.api.get(BUSINESS_INFO, { headers: { cookie: header } });
      assert.notEqual(profile.body.data.legal_business_name, change.legal_business_name);
      const done = await suite.t.api.put(BUSINESS_INFO, change, {
        headers: { cookie: header, origin: origin(), 'x-csrf-token': csrf },
      });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.data.legal_business_name, change.legal_business_name);
    });

    it('takes multipart uploads and /services/ calls with the cookie and the proof', async () => {
      const { header, csrf } = await cookieLogin();
      const headers = { cookie: header, origin: origin(), 'x-csrf-token': csrf };
      const upload = await suite.t.api.request('POST', DOCUMENTS, {
        headers,
        body: form({ document_type: 'memart' }, { file: { bytes: PDF_BYTES, name: 'memart.pdf' } }),
      });
      assert.equal(upload.status, 201, upload.text);
      const account = await suite.t.api.post(CREATE_ACCOUNT, customerBody(), { headers });
      assert.equal(account.status, 201, account.text);
      assertError(
        await suite.t.api.post(CREATE_ACCOUNT, customerBody(), { headers: { cookie: header } }),
        403,
        'CSRF_REJECTED',
      );
    });

    it('lets an Authorization header win over the cookie, and never takes an API key from a cookie', async () => {
      const { header } = await cookieLogin();
      assertError(
        await suite.t.api.get(BUSINESS_INFO, {
          headers: { cookie: header, authorization: 'Bearer not-a-token' },
        }),
        401,
        'UNAUTHENTICATED',
      );
      const keyed = await newPartner(suite, 'sandbox');
      assertError(
        await suite.t.api.get(`${API_PREFIX}/services/virtual-account`, {
          headers: { cookie: `baas_dashboard=${keyed.sandboxKey}` },
        }),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('logs out: the session ends and the cookie is cleared', async () => {
      const { header, csrf } = await cookieLogin();
      const out = await suite.t.api.post(LOGOUT, undefined, {
        headers: { cookie: header, origin: origin(), 'x-csrf-token': csrf },
      });
      assert.equal(out.status, 200, out.text);
      const cleared = setCookie(out.headers);
      assert.equal(cleared.name, 'baas_dashboard');
      assert.equal(cleared.value, '');
      assertError(
        await suite.t.api.get(BUSINESS_INFO, { headers: { cookie: header } }),
        401,
        'UNAUTHENTICATED',
      );
    });
  });
}

const PUBLIC_URL = 'https://partners.bank.example';

describe('dashboard browser sessions behind PUBLIC_URL', () => {
  const suite = useApp('sqlite', { env: { PUBLIC_URL } });

  it("takes PUBLIC_URL's origin as this site's, not the one the Host header names", async () => {
    const partner = await newPartner(suite, 'verified');
    const body = { email: partner.email, password: STRONG_PASSWORD, session: 'cookie' };
    // The test server's own address is what the Host header says, but not where people reach it.
    const byHost = await suite.t.api.post(LOGIN, body, { headers: { origin: suite.t.url } });
    assertError(byHost, 403, 'CSRF_REJECTED');
    assert.equal(byHost.headers.get('set-cookie'), null);
    const login = await suite.t.api.post(LOGIN, body, { headers: { origin: PUBLIC_URL } });
    assert.equal(login.status, 200, login.text);
    const cookie = setCookie(login.headers);
    const proof = { cookie: `${cookie.name}=${cookie.value}`, 'x-csrf-token': login.body.data.csrf_token };
    const change = { legal_business_name: 'Host Header Holdings Ltd' };
    assertError(
      await suite.t.api.put(BUSINESS_INFO, change, { headers: { ...proof, origin: suite.t.url } }),
      403,
      'CSRF_REJECTED',
    );
    const done = await suite.t.api.put(BUSINESS_INFO, change, { headers: { ...proof, origin: PUBLIC_URL } });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.data.legal_business_name, change.legal_business_name);
  });
});

describe('dashboard browser sessions in production', () => {
  const suite = useApp('sqlite', {
    env: {
      NODE_ENV: 'production',
      DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE: 'false',
      PUBLIC_URL,
    },
  });

  it('names the cookie __Host-baas_dashboard and marks it Secure', async () => {
    const partner = await newPartner(suite, 'verified');
    const response = await suite.t.api.post(
      LOGIN,
      { email: partner.email, password: STRONG_PASSWORD, session: 'cookie' },
      { headers: { origin: PUBLIC_URL } },
    );
    assert.equal(response.status, 200, response.text);
    const cookie = setCookie(response.headers);
    assert.equal(cookie.name, '__Host-baas_dashboard');
    assert.ok(cookie.attributes.includes('secure'));
    assert.ok(cookie.attributes.includes('path=/'));
    assert.ok(!cookie.attributes.some((attribute) => attribute.startsWith('domain=')));
  });
});
