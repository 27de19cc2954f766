import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DIALECTS, TEST_DATABASE_URL } from '../support/app.js';

const CONNECTOR_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const KEY = randomBytes(32).toString('base64');

/** Asserts that loadConfig refuses `env` with a ConfigError whose message names every variable given. */
function assertRefused(env: Record<string, string>, ...variables: string[]): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      for (const variable of variables) {
        assert.ok(error.message.includes(variable), `message does not name ${variable}: ${error.message}`);
      }
      return true;
    },
  );
}

for (const dialect of DIALECTS) {
  describe(`loadConfig with a ${dialect.name} DATABASE_URL [${dialect.name}]`, () => {
    const databaseUrl =
      dialect.name === 'postgres' ? TEST_DATABASE_URL : 'sqlite:/tmp/baas-config-test.sqlite';
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      BANK_CONNECTOR_URL: 'https://connector.bank.example',
      BANK_CONNECTOR_SECRET: CONNECTOR_SECRET,
    };
    const PUBLIC_URL = 'https://partners.bank.example';

    it('loads a development configuration with the documented defaults', () => {
      const config = loadConfig({ DATABASE_URL: databaseUrl });
      assert.equal(config.DATABASE_URL, databaseUrl);
      assert.equal(config.PORT, 3000);
      assert.equal(config.HOST, '127.0.0.1');
      assert.equal(config.RATE_LIMIT_IP_PER_MINUTE, 600);
      assert.equal(config.KYC_PROVIDER, 'sandbox');
      assert.equal(config.DATA_DIR, path.resolve('./data'));
      assert.equal(config.WEBHOOK_RETRY_BASE_MS, 30000);
    });

    it('defaults DATABASE_URL to SQLite under DATA_DIR', () => {
      const config = loadConfig({ DATA_DIR: '/tmp/baas-config-dir' });
      assert.equal(config.DATABASE_URL, `sqlite:${path.join('/tmp/baas-config-dir', 'baas.sqlite')}`);
    });

    it('loads a production configuration that has SMTP_URL, DATA_ENCRYPTION_KEY and an https PUBLIC_URL', () => {
      const config = loadConfig({
        ...production,
        SMTP_URL: 'smtp://mail.example.com:587',
        DATA_ENCRYPTION_KEY: KEY,
        PUBLIC_URL,
      });
      assert.equal(config.NODE_ENV, 'production');
      assert.equal(config.DATA_ENCRYPTION_KEY, KEY);
      assert.equal(config.PUBLIC_URL, PUBLIC_URL);
    });

    it('requires four eyes by default in production only; REQUIRE_FOUR_EYES overrides it either way', () => {
      const complete = {
        ...production,
        SMTP_URL: 'smtp://mail.example.com:587',
        DATA_ENCRYPTION_KEY: KEY,
        PUBLIC_URL,
      };
      assert.equal(loadConfig(complete).REQUIRE_FOUR_EYES, true);
      assert.equal(loadConfig({ ...complete, REQUIRE_FOUR_EYES: 'false' }).REQUIRE_FOUR_EYES, false);
      assert.equal(loadConfig({ DATABASE_URL: databaseUrl }).REQUIRE_FOUR_EYES, false);
      assert.equal(loadConfig({ DATABASE_URL: databaseUrl, NODE_ENV: 'test' }).REQUIRE_FOUR_EYES, false);
      assert.equal(
        loadConfig({ DATABASE_URL: databaseUrl, REQUIRE_FOUR_EYES: 'true' }).REQUIRE_FOUR_EYES,
        true,
      );
      assertRefused({ DATABASE_URL: databaseUrl, REQUIRE_FOUR_EYES: 'yes' }, 'REQUIRE_FOUR_EYES');
    });

    it('refuses production without SMTP_URL, naming it', () => {
      assertRefused({ ...production, DATA_ENCRYPTION_KEY: KEY, PUBLIC_URL }, 'SMTP_URL');
    });

    it('refuses production without DATA_ENCRYPTION_KEY, naming it', () => {
      assertRefused(
        { ...production, SMTP_URL: 'smtp://mail.example.com:587', PUBLIC_URL },
        'DATA_ENCRYPTION_KEY',
      );
    });

    it('names every missing one when production has none of them', () => {
      assertRefused(production, 'SMTP_URL', 'DATA_ENCRYPTION_KEY', 'PUBLIC_URL');
      assertRefused(
        { NODE_ENV: 'production', DATABASE_URL: databaseUrl },
        'SMTP_URL',
        'DATA_ENCRYPTION_KEY',
        'PUBLIC_URL',
        'BANK_CONNECTOR_URL',
        'BANK_CONNECTOR_SECRET',
      );
    });

    it('refuses production without the bank connector (live money goes through the sponsor bank)', () => {
      const complete = {
        ...production,
        SMTP_URL: 'smtp://mail.example.com:587',
        DATA_ENCRYPTION_KEY: KEY,
        PUBLIC_URL,
      };
      assert.equal(loadConfig(complete).BANK_CONNECTOR_URL, 'https://connector.bank.example');
      assertRefused({ ...complete, BANK_CONNECTOR_URL: '' }, 'BANK_CONNECTOR_URL');
      assertRefused({ ...complete, BANK_CONNECTOR_SECRET: '' }, 'BANK_CONNECTOR_SECRET');
    });

    it('refuses a connector secret under 24 bytes and an allow-list entry that is no address, never showing the secret', () => {
      const short = `whsec_${randomBytes(16).toString('base64')}`;
      assertRefused({ DATABASE_URL: databaseUrl, BANK_CONNECTOR_SECRET: short }, 'BANK_CONNECTOR_SECRET');
      assert.throws(
        () => loadConfig({ DATABASE_URL: databaseUrl, BANK_CONNECTOR_SECRET: short }),
        (error: unknown) => error instanceof ConfigError && !error.message.includes(short.slice(6)),
      );
      assertRefused(
        { DATABASE_URL: databaseUrl, BANK_CONNECTOR_SECRET: 'not-a-secret' },
        'BANK_CONNECTOR_SECRET',
      );
      for (const list of ['300.1.1.1', '10.0.0.0/33', 'example.com', '10.0.0.1/8/1', '::1/129']) {
        assertRefused(
          { DATABASE_URL: databaseUrl, BANK_CONNECTOR_ALLOWED_IPS: list },
          'BANK_CONNECTOR_ALLOWED_IPS',
        );
      }
      const config = loadConfig({
        DATABASE_URL: databaseUrl,
        BANK_CONNECTOR_ALLOWED_IPS: '127.0.0.1, 10.0.0.0/8, ::1, fd00::/8',
      });
      assert.equal(config.BANK_CONNECTOR_ALLOWED_IPS, '127.0.0.1, 10.0.0.0/8, ::1, fd00::/8');
    });

    it('refuses production without PUBLIC_URL or with an http one (invitation links would be http://)', () => {
      const complete = { ...production, SMTP_URL: 'smtp://mail.example.com:587', DATA_ENCRYPTION_KEY: KEY };
      assertRefused(complete, 'PUBLIC_URL');
      assertRefused({ ...complete, PUBLIC_URL: 'http://partners.bank.example' }, 'PUBLIC_URL');
      assert.throws(
        () => loadConfig({ ...complete, PUBLIC_URL: 'http://partners.bank.example' }),
        (error: unknown) => error instanceof ConfigError && /PUBLIC_URL.*https/.test(error.message),
      );
      // Outside production, http (a developer's machine) stays allowed, and unset means http://HOST:PORT.
      const development = loadConfig({ DATABASE_URL: databaseUrl, PUBLIC_URL: 'http://localhost:3000' });
      assert.equal(development.PUBLIC_URL, 'http://localhost:3000');
    });

    it('refuses a DATA_ENCRYPTION_KEY that is not base64 of exactly 32 bytes, in any environment', () => {
      for (const key of [
        'abc',
        'not base64 at all, but forty-four chars!!!!',
        randomBytes(16).toString('base64'),
        randomBytes(31).toString('base64'),
        randomBytes(33).toString('base64'),
        randomBytes(32).toString('hex'),
      ]) {
        assertRefused({ DATABASE_URL: databaseUrl, DATA_ENCRYPTION_KEY: key }, 'DATA_ENCRYPTION_KEY');
        assertRefused(
          { ...production, SMTP_URL: 'smtp://mail.example.com', DATA_ENCRYPTION_KEY: key },
          'DATA_ENCRYPTION_KEY',
        );
      }
    });

    it('refuses a PORT that is not an integer from 0 to 65535', () => {
      for (const port of ['abc', '-1', '65536', '80abc']) {
        assertRefused({ DATABASE_URL: databaseUrl, PORT: port }, 'PORT');
      }
      assert.equal(loadConfig({ DATABASE_URL: databaseUrl, PORT: '8080' }).PORT, 8080);
    });

    it('refuses integer settings written as fractions or in exponent notation instead of truncating them', () => {
      for (const value of ['3000.5', '1e3']) {
        assertRefused({ DATABASE_URL: databaseUrl, PORT: value }, 'PORT');
        assertRefused(
          { DATABASE_URL: databaseUrl, RATE_LIMIT_IP_PER_MINUTE: value },
          'RATE_LIMIT_IP_PER_MINUTE',
        );
      }
    });

    it('refuses a bank code that is not 6 digits', () => {
      for (const code of ['12345', '1234567', 'abcdef', '12 456', '０９０９９９']) {
        assertRefused({ DATABASE_URL: databaseUrl, BANK_CODE_SANDBOX: code }, 'BANK_CODE_SANDBOX');
        assertRefused({ DATABASE_URL: databaseUrl, BANK_CODE_LIVE: code }, 'BANK_CODE_LIVE');
      }
      assert.equal(
        loadConfig({ DATABASE_URL: databaseUrl, BANK_CODE_SANDBOX: '000011' }).BANK_CODE_SANDBOX,
        '000011',
      );
    });

    it('refuses a negative or non-numeric RATE_LIMIT_IP_PER_MINUTE and accepts 0', () => {
      for (const value of ['-1', 'lots']) {
        assertRefused(
          { DATABASE_URL: databaseUrl, RATE_LIMIT_IP_PER_MINUTE: value },
          'RATE_LIMIT_IP_PER_MINUTE',
        );
      }
      assert.equal(
        loadConfig({ DATABASE_URL: databaseUrl, RATE_LIMIT_IP_PER_MINUTE: '0' }).RATE_LIMIT_IP_PER_MINUTE,
        0,
      );
    });

    it('reads UV_THREADPOOL_SIZE as libuv can take it: a whole number from 1 to 1024, or unset', () => {
      for (const value of ['0', '1025', 'two', '2.5']) {
        assertRefused({ DATABASE_URL: databaseUrl, UV_THREADPOOL_SIZE: value }, 'UV_THREADPOOL_SIZE');
      }
      assert.equal(loadConfig({ DATABASE_URL: databaseUrl, UV_THREADPOOL_SIZE: '2' }).UV_THREADPOOL_SIZE, 2);
      assert.equal(loadConfig({ DATABASE_URL: databaseUrl }).UV_THREADPOOL_SIZE, undefined);
    });

    it('refuses an unsupported DATABASE_URL, SMTP_URL or REDIS_URL', () => {
      assertRefused({ DATABASE_URL: 'mysql://root@localhost/baas' }, 'DATABASE_URL');
      assertRefused({ DATABASE_URL: databaseUrl, SMTP_URL: 'http://mail.example.com' }, 'SMTP_URL');
      assertRefused({ DATABASE_URL: databaseUrl, REDIS_URL: 'localhost:6379' }, 'REDIS_URL');
    });

    it('names every problem at once', () => {
      assertRefused(
        { DATABASE_URL: databaseUrl, PORT: 'abc', BANK_CODE_SANDBOX: '1' },
        'PORT',
        'BANK_CODE_SANDBOX',
      );
      // Malformed values and the production rules together, in one message.
      assertRefused(
        { ...production, PORT: 'abc', DATA_ENCRYPTION_KEY: 'short', KYC_PROVIDER: 'prembly' },
        'PORT',
        'SMTP_URL',
        'DATA_ENCRYPTION_KEY',
        'KYC_APP_ID',
      );
    });
  });
}

describe('configuration errors and secrets', () => {
  /** Invalid values of the secret variables, each holding a marker that must not be printed. */
  const MARKER = 'Sup3rSecretMarker';
  const invalid: Record<string, string> = {
    ADMIN_API_KEY: `short-${MARKER}`,
    DATA_ENCRYPTION_KEY: `not-base64-${MARKER}`,
    SMTP_URL: `http://mailer:${MARKER}@mail.example.com:587`,
    REDIS_URL: `redis-host:6379/${MARKER}`,
    DATABASE_URL: `mysql://root:${MARKER}@db.example.com/baas`,
  };

  it('names each invalid secret variable and its problem without printing its value', () => {
    for (const [variable, value] of Object.entries(invalid)) {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.ok(error.message.includes(variable), `names ${variable}: ${error.message}`);
          assert.ok(!error.message.includes(MARKER), `prints the value of ${variable}: ${error.message}`);
          const line = error.message.split('\n').find((text) => text.includes(variable)) ?? '';
          assert.match(line, new RegExp(`${variable}.*(characters|must|expected|match)`, 'i'), line);
          return true;
        },
      );
    }
  });

  it('prints no secret value when several problems are reported together', () => {
    assert.throws(
      () => loadConfig({ ...invalid, PORT: 'abc', NODE_ENV: 'production', KYC_PROVIDER: 'prembly' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.ok(!error.message.includes(MARKER), error.message);
        for (const variable of [...Object.keys(invalid), 'PORT']) assert.ok(error.message.includes(variable));
        return true;
      },
    );
  });

  it('still shows the value of a setting that is not a secret', () => {
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'loud' }),
      (error: unknown) => error instanceof ConfigError && error.message.includes('"loud"'),
    );
  });
});
