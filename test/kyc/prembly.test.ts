import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { normalizeName, normalizeProviderDate } from '../../src/modules/kyc/prembly.provider.js';
import { DIALECTS, useApp } from '../support/app.js';
import { postRepresentative } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { type PremblyReply, PremblyServer, premblyCode, premblyFound } from '../support/prembly-server.js';
import { kycChecks } from '../support/records.js';
import { freePort } from '../support/smtp-sink.js';

const CREDENTIALS = { appId: 'app-id-7f3a9c', apiKey: 'sk_prembly_test_5d1e2b' };
const TIMEOUT_MS = 400;

/** The representative as the default test fields declare them: Ada Obi, born 1985-04-12. */
const ADA = { firstName: 'ADA', lastName: 'OBI', dateOfBirth: '12-Apr-1985' };

const premblyEnv = (baseUrl: string, overrides: Record<string, string> = {}) => ({
  KYC_PROVIDER: 'prembly',
  KYC_BASE_URL: baseUrl,
  KYC_APP_ID: CREDENTIALS.appId,
  KYC_API_KEY: CREDENTIALS.apiKey,
  KYC_TIMEOUT_MS: String(TIMEOUT_MS),
  ...overrides,
});

describe('normalizeProviderDate', () => {
  it('turns the dates Prembly writes into YYYY-MM-DD', () => {
    for (const [input, expected] of [
      ['01-Jan-2000', '2000-01-01'],
      ['2-Aug-1904', '1904-08-02'],
      ['12-apr-1985', '1985-04-12'],
      ['01-January-2000', '2000-01-01'],
      ['31-DECEMBER-1999', '1999-12-31'],
      ['09/Sep/1990', '1990-09-09'],
      ['09 Sep 1990', '1990-09-09'],
      ['  05-May-1977  ', '1977-05-05'],
      ['1985-04-12', '1985-04-12'],
      ['1985-04-12T00:00:00.000Z', '1985-04-12'],
    ] as const) {
      assert.equal(normalizeProviderDate(input), expected, input);
    }
  });

  it('gives undefined for an absent or unreadable date', () => {
    for (const input of [
      undefined,
      '',
      '   ',
      'not a date',
      '01-Foo-2000',
      '12/04/1985',
      '1985',
      'Apr-12-1985',
    ]) {
      assert.equal(normalizeProviderDate(input), undefined, String(input));
    }
  });
});

describe('normalizeName', () => {
  it('ignores case, accents, spaces, hyphens and apostrophes', () => {
    assert.equal(normalizeName('Adé'), 'ADE');
    assert.equal(normalizeName('ọlámídé'), 'OLAMIDE');
    assert.equal(normalizeName("O'Brien-Nwosu"), 'OBRIENNWOSU');
    assert.equal(normalizeName('  Mary  Jane '), 'MARYJANE');
    assert.equal(normalizeName('ADA'), normalizeName('ada'));
  });

  it('keeps different names different and gives "" for nothing', () => {
    assert.notEqual(normalizeName('Ada'), normalizeName('Adaeze'));
    assert.notEqual(normalizeName('Obi'), normalizeName('Obia'));
    assert.equal(normalizeName(undefined), '');
    assert.equal(normalizeName(''), '');
  });
});

describe('KYC provider configuration', () => {
  it('refuses KYC_PROVIDER=prembly without KYC_APP_ID and KYC_API_KEY', () => {
    for (const env of [
      { KYC_PROVIDER: 'prembly' },
      { KYC_PROVIDER: 'prembly', KYC_APP_ID: 'app' },
      { KYC_PROVIDER: 'prembly', KYC_API_KEY: 'key' },
      { KYC_PROVIDER: 'prembly', KYC_APP_ID: '  ', KYC_API_KEY: '' },
    ]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /KYC_APP_ID/);
          assert.match(error.message, /KYC_API_KEY/);
          return true;
        },
        JSON.stringify(env),
      );
    }
  });

  it('accepts prembly with both credentials, defaulting to api.prembly.com and a 10 s timeout', () => {
    const config = loadConfig({ KYC_PROVIDER: 'prembly', KYC_APP_ID: 'app', KYC_API_KEY: 'key' });
    assert.equal(config.KYC_PROVIDER, 'prembly');
    assert.equal(config.KYC_TIMEOUT_MS, 10000);
    assert.match(config.KYC_BASE_URL, /^https:\/\//);
    assert.equal(loadConfig({}).KYC_PROVIDER, 'sandbox');
  });

  it('refuses an unknown provider and a timeout that is not a positive integer', () => {
    assert.throws(() => loadConfig({ KYC_PROVIDER: 'smile' }), ConfigError);
    assert.throws(() => loadConfig({ KYC_TIMEOUT_MS: '0' }), ConfigError);
    assert.throws(() => loadConfig({ KYC_TIMEOUT_MS: 'soon' }), ConfigError);
  });
});

interface KycCase {
  name: string;
  reply: PremblyReply;
  /** Representative fields sent instead of the defaults. */
  fields?: Record<string, string>;
  ok: boolean;
  outcome: 'passed' | 'failed' | 'error';
  reason?: string;
  message?: RegExp;
}

const RETRY = /retry/i;

const CASES: KycCase[] = [
  {
    name: 'passes when the name and date of birth match the record',
    reply: premblyFound(ADA),
    ok: true,
    outcome: 'passed',
    reason: 'verified',
  },
  {
    name: 'fails when the last name differs from the record',
    reply: premblyFound({ ...ADA, lastName: 'OKAFOR' }),
    ok: false,
    outcome: 'failed',
    reason: 'name_mismatch',
    message: /name/i,
  },
  {
    name: 'fails when the first name is neither the first nor the middle name of the record',
    reply: premblyFound({ ...ADA, firstName: 'CHIOMA', middleName: 'NGOZI' }),
    ok: false,
    outcome: 'failed',
    reason: 'name_mismatch',
    message: /name/i,
  },
  {
    name: 'fails when the date of birth differs from the record',
    reply: premblyFound({ ...ADA, dateOfBirth: '13-Apr-1985' }),
    ok: false,
    outcome: 'failed',
    reason: 'dob_mismatch',
    message: /date of birth/i,
  },
  {
    name: 'passes when the first name matches the middle name of the record',
    reply: premblyFound({
      firstName: 'CHUKWUEMEKA',
      middleName: 'ADA',
      lastName: 'OBI',
      dateOfBirth: '12-Apr-1985',
    }),
    ok: true,
    outcome: 'passed',
  },
  {
    name: 'tolerates accents, case, hyphens and apostrophes in names and a long month name',
    reply: premblyFound({ firstName: 'ADE', lastName: "O'BI-NNA", dateOfBirth: '12-April-1985' }),
    fields: { first_name: 'adé', last_name: 'Obinna' },
    ok: true,
    outcome: 'passed',
  },
  {
    name: 'fails with a not-found message on response_code 01',
    reply: premblyCode('01', 'BVN not found'),
    ok: false,
    outcome: 'failed',
    reason: 'not_found',
    message: /not found/i,
  },
  {
    name: 'fails on response_code 07 (BVN blocked)',
    reply: premblyCode('07', 'BVN blocked'),
    ok: false,
    outcome: 'failed',
    reason: 'blocked',
  },
  {
    name: 'asks to retry on response_code 02 (provider unavailable)',
    reply: premblyCode('02', 'Service unavailable'),
    ok: false,
    outcome: 'error',
    message: RETRY,
  },
  {
    name: 'asks to retry on response_code 03 (insufficient wallet balance)',
    reply: premblyCode('03', 'Insufficient balance'),
    ok: false,
    outcome: 'error',
    reason: 'insufficient_balance',
    message: RETRY,
  },
  {
    name: 'asks to retry on a 200 without a response_code',
    reply: { body: { status: true, detail: 'ok' } },
    ok: false,
    outcome: 'error',
    message: RETRY,
  },
  {
    name: 'asks to retry on HTTP 500 with a JSON body',
    reply: { status: 500, body: { status: false, detail: 'Internal error' } },
    ok: false,
    outcome: 'error',
    reason: 'http_500',
    message: RETRY,
  },
  {
    name: 'asks to retry on HTTP 502 with an HTML body',
    reply: { status: 502, raw: '<html><body>Bad gateway</body></html>' },
    ok: false,
    outcome: 'error',
    message: RETRY,
  },
  {
    name: 'asks to retry on HTTP 401 (our credentials refused)',
    reply: { status: 401, body: { status: false, detail: 'Invalid credentials' } },
    ok: false,
    outcome: 'error',
    reason: 'http_401',
    message: RETRY,
  },
  {
    name: 'asks to retry on a 200 whose body is not JSON',
    reply: { status: 200, raw: 'Verification Successfull' },
    ok: false,
    outcome: 'error',
    message: RETRY,
  },
  {
    name: 'asks to retry when the provider answers after the timeout',
    reply: { ...premblyFound(ADA), delayMs: TIMEOUT_MS * 4 },
    ok: false,
    outcome: 'error',
    reason: 'timeout',
    message: RETRY,
  },
];

/** Distinct BVNs per case, so the fake can answer each differently. */
const bvnOf = (index: number) => `3${String(index + 1).padStart(10, '0')}`;

for (const dialect of DIALECTS) {
  describe(`Prembly KYC provider over HTTP [${dialect.name}]`, { skip: dialect.skip }, () => {
    let prembly: PremblyServer;
    before(async () => {
      prembly = await new PremblyServer(CREDENTIALS).start();
      for (const [index, kycCase] of CASES.entries()) prembly.answer(bvnOf(index), kycCase.reply);
    });
    const app = useApp(dialect.name, () => ({ env: premblyEnv(prembly.url) }));
    after(() => prembly?.stop());

    for (const [index, kycCase] of CASES.entries()) {
      it(`${kycCase.name}, recording a kyc_checks row`, async () => {
        const bvn = bvnOf(index);
        const partner = await newPartner(app, 'signed-in');
        const started = Date.now();
        const response = await postRepresentative(app.t, partner.token, { ...kycCase.fields, bvn });
        const elapsed = Date.now() - started;
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.data.kyc.ok, kycCase.ok, response.text);
        if (kycCase.message) assert.match(response.body.data.kyc.message, kycCase.message);
        for (const recordOnly of [
          'CHUKWUEMEKA',
          'Chukwuemeka',
          'NGOZI',
          'OKAFOR',
          '13-Apr-1985',
          '08030000000',
        ]) {
          assert.ok(!response.text.includes(recordOnly), 'the BVN record is never echoed');
        }
        assert.equal(prembly.requestsFor(bvn).length, 1, 'one lookup per save');
        if (kycCase.outcome === 'error') assert.ok(elapsed < TIMEOUT_MS * 3, `answered in ${elapsed} ms`);

        const checks = await kycChecks(app.t, partner.companyId);
        assert.equal(checks.length, 1);
        assert.equal(checks[0]?.provider, 'prembly');
        assert.equal(checks[0]?.outcome, kycCase.outcome);
        assert.equal(checks[0]?.bvn_last4, bvn.slice(-4));
        if (kycCase.reason) assert.equal(checks[0]?.reason, kycCase.reason);
        const representative = await app.t.db
          .selectFrom('representatives')
          .select(['kyc_status', 'kyc_provider', 'bvn_verified_at'])
          .where('partner_id', '=', partner.companyId)
          .executeTakeFirstOrThrow();
        assert.equal(representative.kyc_status, kycCase.outcome);
        assert.equal(representative.kyc_provider, 'prembly');
        assert.equal(representative.bvn_verified_at === null, !kycCase.ok, 'only a pass sets the BVN');
      });
    }

    it('sends POST /verification/bvn with app-id, x-api-key and a JSON body {number}', async () => {
      const bvn = '30000000777';
      prembly.answer(bvn, premblyFound(ADA));
      const partner = await newPartner(app, 'signed-in');
      const response = await postRepresentative(app.t, partner.token, { bvn });
      assert.equal(response.body.data.kyc.ok, true, response.text);
      const [request] = prembly.requestsFor(bvn);
      assert.ok(request);
      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/verification/bvn');
      assert.equal(request.headers['app-id'], CREDENTIALS.appId);
      assert.equal(request.headers['x-api-key'], CREDENTIALS.apiKey);
      assert.match(request.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(JSON.parse(request.body), { number: bvn });
    });

    it('lets the BVN be corrected after a provider error, and locks it after a pass', async () => {
      const unavailable = '30000000888';
      const good = '30000000999';
      prembly.answer(unavailable, premblyCode('02', 'Service unavailable'));
      prembly.answer(good, premblyFound(ADA));
      const partner = await newPartner(app, 'signed-in');
      assert.equal(
        (await postRepresentative(app.t, partner.token, { bvn: unavailable })).body.data.kyc.ok,
        false,
      );
      const corrected = await postRepresentative(app.t, partner.token, { bvn: good });
      assert.equal(corrected.status, 200, corrected.text);
      assert.equal(corrected.body.data.kyc.ok, true);
      const changed = await postRepresentative(app.t, partner.token, { bvn: unavailable });
      assert.equal(changed.status, 409, changed.text);
      assert.equal(changed.body.error_code, 'BVN_IMMUTABLE');
      assert.deepEqual(
        (await kycChecks(app.t, partner.companyId)).map((check) => check.outcome),
        ['error', 'passed'],
      );
    });

    it('never writes a whole BVN to the logs, whatever the provider answered', () => {
      const bvns = [...CASES.keys()].map(bvnOf);
      assert.ok(app.t.logs.length > 0);
      for (const bvn of bvns) assert.ok(!app.t.logs.some((line) => line.includes(bvn)), `BVN ${bvn} logged`);
    });
  });

  describe(`Prembly KYC provider unreachable [${dialect.name}]`, { skip: dialect.skip }, () => {
    let port: number;
    before(async () => {
      port = await freePort();
    });
    const app = useApp(dialect.name, () => ({ env: premblyEnv(`http://127.0.0.1:${port}/`) }));

    it('asks to retry when the connection is refused, saving the representative and an error check', async () => {
      const partner = await newPartner(app, 'signed-in');
      const response = await postRepresentative(app.t, partner.token, { bvn: '30000000555' });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.kyc.ok, false);
      assert.match(response.body.data.kyc.message, RETRY);
      const checks = await kycChecks(app.t, partner.companyId);
      assert.deepEqual(
        checks.map((check) => [check.provider, check.outcome]),
        [['prembly', 'error']],
      );
      assert.ok(!app.t.logs.some((line) => line.includes('30000000555')));
    });
  });
}
