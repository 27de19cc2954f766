import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { createKeyRing } from '../../src/platform/crypto/keys.js';
import { decrypt } from '../../src/platform/crypto/secret-box.js';
import {
  createTestApp,
  createTestDatabase,
  DIALECTS,
  startApp,
  TEST_ENCRYPTION_KEY,
  type TestApp,
} from '../support/app.js';
import { until } from '../support/assertions.js';
import { newPartner, type Partner } from '../support/partners.js';
import { RESEND_OTP, VERIFY_OTP } from '../support/paths.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';

/** A TCP server that accepts connections and then never says a word (or drops them at once). */
async function badSmtpServer(
  behaviour: 'silent' | 'drop',
  port = 0,
): Promise<Server & { sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    if (behaviour === 'drop') socket.destroy();
  }) as Server & { sockets: Socket[] };
  server.sockets = sockets;
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function closeServer(server: Server & { sockets: Socket[] }): Promise<void> {
  for (const socket of server.sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const mailRows = (t: TestApp, recipient: string) =>
  t.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('recipient', '=', recipient)
    .orderBy('created_at')
    .execute();

type MailRow = Awaited<ReturnType<typeof mailRows>>[number];

/** Polls the outbox until the address's first message satisfies `ready` (the worker runs in the background). */
async function firstMailWhen(
  t: TestApp,
  recipient: string,
  ready: (row: MailRow) => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<MailRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await mailRows(t, recipient);
    if (row && ready(row)) return row;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last row: ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Times a request: registration must answer without waiting for the mail server. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

for (const dialect of DIALECTS) {
  describe(`e-mail through the durable outbox [${dialect.name}]`, { skip: dialect.skip }, () => {
    let t: TestApp | undefined;
    let sink: SmtpSink | undefined;
    let bad: (Server & { sockets: Socket[] }) | undefined;
    afterEach(async () => {
      await t?.close();
      await sink?.stop();
      if (bad) await closeServer(bad);
      t = undefined;
      sink = undefined;
      bad = undefined;
    });

    it('answers registration at once while the SMTP server never greets, and gives up the attempt at SMTP_TIMEOUT_MS', async () => {
      bad = await badSmtpServer('silent');
      const port = (bad.address() as AddressInfo).port;
      t = await createTestApp(dialect.name, {
        env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '400' },
      });
      const app = t;
      const { result: account, ms } = await timed(() => newPartner({ t: app }, 'registered'));
      assert.ok(ms < 400, `registration took ${Math.round(ms)} ms: it must not wait for the mail server`);
      await until('the worker to connect to the silent server', () => bad!.sockets.length > 0);
      // The silent server holds the connection: the attempt ends by the greeting timeout, not by hanging.
      const row = await firstMailWhen(
        app,
        account.email,
        (mail) => mail.attempts === 1,
        'the attempt to time out',
      );
      assert.equal(row.status, 'pending', 'a failed attempt is retried later');
      assert.match(String(row.last_error), /greeting|timeout/i);
      assert.ok(row.next_attempt_at > app.clock.now(), 'the retry waits out its backoff');
    });

    it('retries a message after the SMTP server dropped the connection, and delivers a working code once it is back', async () => {
      bad = await badSmtpServer('drop');
      const port = (bad.address() as AddressInfo).port;
      t = await createTestApp(dialect.name, {
        env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '2000', MAIL_RETRY_BASE_MS: '5000' },
      });
      const app = t;
      const account = await newPartner({ t: app }, 'registered');
      const dropped = await firstMailWhen(
        app,
        account.email,
        (mail) => mail.attempts === 1,
        'the dropped attempt',
      );
      assert.equal(dropped.status, 'pending');

      await closeServer(bad);
      bad = undefined;
      sink = await new SmtpSink().start(port);
      app.clock.advance(5_000);
      const otp = await sink.otpFor(account.email);
      const verified = await app.api.post(VERIFY_OTP, { email: account.email, otp });
      assert.equal(verified.status, 200, verified.text);
      const sent = await firstMailWhen(
        app,
        account.email,
        (mail) => mail.status === 'sent',
        'the sent record',
      );
      assert.equal(sent.attempts, 2);
      assert.equal(sent.body_encrypted, null, 'a sent message keeps no body');
    });

    it('keeps the code encrypted in the outbox and never sends it after the code expired', async () => {
      const port = await freePort();
      t = await createTestApp(dialect.name, {
        env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_RETRY_BASE_MS: '60000' },
      });
      const app = t;
      const account = await newPartner({ t: app }, 'registered');
      const queued = await firstMailWhen(
        app,
        account.email,
        (mail) => mail.attempts === 1,
        'the failed attempt',
      );
      assert.ok(queued.body_encrypted?.startsWith('v1.'), 'the body is sealed');
      // Opened with the instance's key, the body holds the code; sealed, it does not. (Any six digits
      // in a row turn up in random base64url text about once in 200 bodies: the code itself never does.)
      const sealed = queued.body_encrypted ?? '';
      const opened = decrypt(createKeyRing(TEST_ENCRYPTION_KEY).encryption, sealed);
      const code = /\b(\d{6})\b/.exec(opened)?.[1];
      assert.ok(code, `the sealed body is the code's e-mail: ${opened}`);
      assert.ok(!sealed.includes(code), 'no code in clear text');

      // Backoff 60 s, 120 s, 240 s: the attempt at 7 minutes would retry past the code's 10 minutes, so
      // the message is given up instead of sent late.
      let attempts = 1;
      for (const step of [60_000, 120_000, 240_000]) {
        app.clock.advance(step);
        attempts += 1;
        const expected = attempts;
        await firstMailWhen(app, account.email, (mail) => mail.attempts === expected, `attempt ${expected}`);
      }
      const settled = await firstMailWhen(
        app,
        account.email,
        (mail) => mail.status !== 'pending',
        'giving up',
      );
      assert.equal(settled.status, 'failed');
      assert.equal(settled.body_encrypted, null, 'a given-up message keeps no body');

      sink = await new SmtpSink().start(port);
      app.clock.advance(60 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(sink.mailsTo(account.email).length, 0, 'an expired code is never e-mailed');
    });

    it('sends what a stopped instance left in the outbox (the message survives a restart)', async () => {
      const database = await createTestDatabase(dialect.name);
      const port = await freePort();
      const first = await startApp(database, { env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
      let account: Partner;
      try {
        account = await newPartner({ t: first }, 'registered');
      } finally {
        await first.stop();
      }
      sink = await new SmtpSink().start(port);
      const second = await startApp(database, { env: { SMTP_URL: sink.url } });
      try {
        second.clock.advance(60_000);
        const otp = await sink.otpFor(account.email);
        const verified = await second.api.post(VERIFY_OTP, { email: account.email, otp });
        assert.equal(verified.status, 200, verified.text);
      } finally {
        await second.stop();
        await database.drop();
      }
    });

    it('still counts the minute after a resend that was delivered', async () => {
      sink = await new SmtpSink().start();
      t = await createTestApp(dialect.name, { env: { SMTP_URL: sink.url } });
      const account = await newPartner({ t }, 'registered');
      assert.equal((await t.api.post(RESEND_OTP, { email: account.email })).status, 200);
      await sink.waitForMail(account.email, 2);
      const again = await t.api.post(RESEND_OTP, { email: account.email });
      assert.equal(again.status, 429, again.text);
      assert.equal(again.body.error_code, 'RATE_LIMITED');
    });
  });
}
