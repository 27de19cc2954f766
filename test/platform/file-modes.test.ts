import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, DIALECTS, startApp, type TestDatabase } from '../support/app.js';
import { form, PDF_BYTES, registration } from '../support/factories.js';
import { DOCUMENTS, LOGIN, REGISTER, VERIFY_OTP } from '../support/paths.js';
import { codeIn, outboxMail } from '../support/smtp-sink.js';

/**
 * Everything under DATA_DIR is private to the service's user: directories 0700, files 0600 (the
 * database and its WAL files, uploads, development e-mails and key), whatever the umask. The test
 * runs the app under umask 000, where anything left to defaults would be world-readable.
 */

const modeOf = (file: string) => statSync(file).mode & 0o777;
const octal = (mode: number) => `0${mode.toString(8)}`;

function assertMode(file: string, mode: number): void {
  assert.ok(existsSync(file), `${file} exists`);
  assert.equal(octal(modeOf(file)), octal(mode), file);
}

/** Every file and directory under `root`, recursively. */
function walk(root: string): Array<{ path: string; directory: boolean }> {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(root, entry.name);
    return entry.isDirectory()
      ? [{ path: full, directory: true }, ...walk(full)]
      : [{ path: full, directory: false }];
  });
}

for (const dialect of DIALECTS) {
  describe(`file modes under DATA_DIR [${dialect.name}]`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let dataDir: string;
    let env: Record<string, string>;
    let previousUmask: number;

    before(async () => {
      previousUmask = process.umask(0o000);
      database = await createTestDatabase(dialect.name);
      // A DATA_DIR the app creates itself; no DATA_ENCRYPTION_KEY (development key) and no
      // SMTP_URL (development outbox), so every kind of file is written.
      dataDir = path.join(database.dataDir, 'data');
      env = { DATA_DIR: dataDir, DATA_ENCRYPTION_KEY: '', NODE_ENV: 'development', LOG_LEVEL: 'silent' };
      if (dialect.name === 'sqlite') env['DATABASE_URL'] = `sqlite:${path.join(dataDir, 'baas.sqlite')}`;
    });
    after(async () => {
      process.umask(previousUmask);
      await database?.drop();
    });

    /** Registers, verifies from the outbox, logs in and uploads a document. */
    async function exercise(instance: Awaited<ReturnType<typeof startApp>>): Promise<void> {
      const body = registration();
      assert.equal((await instance.api.post(REGISTER, body)).status, 201);
      const otp = codeIn((await outboxMail(dataDir, body.email)).text);
      const verified = await instance.api.post(VERIFY_OTP, {
        email: body.email,
        otp,
      });
      assert.equal(verified.status, 200, verified.text);
      const login = await instance.api.post(LOGIN, { email: body.email, password: body.password });
      assert.equal(login.status, 200, login.text);
      const upload = await instance.api.request('POST', DOCUMENTS, {
        token: login.body.data.token,
        body: form({ document_type: 'other' }, { file: { bytes: PDF_BYTES, name: 'other.pdf' } }),
      });
      assert.equal(upload.status, 201, upload.text);
    }

    function assertPrivate(): void {
      assertMode(dataDir, 0o700);
      assertMode(path.join(dataDir, 'files'), 0o700);
      assertMode(path.join(dataDir, 'outbox'), 0o700);
      assertMode(path.join(dataDir, 'data-encryption.key'), 0o600);
      if (dialect.name === 'sqlite') {
        for (const suffix of ['', '-wal', '-shm'])
          assertMode(path.join(dataDir, `baas.sqlite${suffix}`), 0o600);
      }
      const entries = walk(dataDir);
      assert.ok(
        entries.some((entry) => entry.path.endsWith('.eml')),
        'an outbox e-mail was written',
      );
      assert.ok(
        entries.some((entry) => entry.path.startsWith(path.join(dataDir, 'files')) && !entry.directory),
        'an upload was stored',
      );
      for (const entry of entries) assertMode(entry.path, entry.directory ? 0o700 : 0o600);
    }

    it('creates DATA_DIR, files/ and outbox/ 0700 and the database, uploads, e-mails and key 0600', async () => {
      const instance = await startApp(database, { env });
      try {
        await exercise(instance);
        assertPrivate();
      } finally {
        await instance.stop();
      }
    });

    it('tightens what an earlier version left readable by others when it starts', async () => {
      for (const entry of walk(dataDir)) chmodSync(entry.path, entry.directory ? 0o755 : 0o644);
      chmodSync(dataDir, 0o755);
      const instance = await startApp(database, { env });
      try {
        await exercise(instance);
        assertMode(dataDir, 0o700);
        assertMode(path.join(dataDir, 'files'), 0o700);
        assertMode(path.join(dataDir, 'outbox'), 0o700);
        if (dialect.name === 'sqlite') {
          for (const suffix of ['', '-wal', '-shm'])
            assertMode(path.join(dataDir, `baas.sqlite${suffix}`), 0o600);
        }
      } finally {
        await instance.stop();
      }
    });
  });
}
