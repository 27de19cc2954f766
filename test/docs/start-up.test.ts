import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INVITATION_LOOKUP } from '../operators/operator-kit.js';
import { createTestDatabase, DIALECTS, startApp, TEST_ADMIN_KEY, type TestDatabase } from '../support/app.js';
import { uniqueEmail } from '../support/factories.js';
import { Api } from '../support/http.js';
import {
  runScript,
  type ServerProcess,
  serverEnv,
  spawnServer,
  stopServer,
  waitUntilReady,
} from '../support/server-process.js';
import { freePort } from '../support/smtp-sink.js';

/*
 * Issue 30: what a newcomer is told to open. The start-up log names the dashboard, the console and the
 * docs at the address the server really has, and `npm run operator -- invite` prints its set-up link
 * on the server's PORT (not 3000) and says so when nothing answers where its link points.
 */

interface Pages {
  dashboard: string;
  console: string;
  docs: string;
  msg: string;
}

/** The start-up log line that names the pages (written just after listen: polled for a moment). */
async function pagesLine(server: ServerProcess): Promise<Pages> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const line = server
      .stdout()
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as Partial<Pages>)
      .find((entry) => entry.dashboard !== undefined);
    if (line) return line as Pages;
    if (Date.now() > deadline) assert.fail(`no start-up line names the pages:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const dialect of DIALECTS) {
  describe(`the addresses the server and the operator command print [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect.name);
    });
    after(async () => {
      await database?.drop();
    });

    it('logs the dashboard, console and docs at the address it listens on, each of them served there', async () => {
      const port = await freePort();
      const server = spawnServer(serverEnv(database, { PORT: String(port), ADMIN_API_KEY: TEST_ADMIN_KEY }));
      try {
        await waitUntilReady(server, '/readyz', 60_000);
        const line = await pagesLine(server);
        const origin = `http://127.0.0.1:${port}`;
        assert.deepEqual(
          { dashboard: line.dashboard, console: line.console, docs: line.docs },
          { dashboard: `${origin}/dashboard`, console: `${origin}/console`, docs: `${origin}/docs` },
        );
        for (const url of [line.dashboard, line.console, line.docs]) {
          assert.ok(line.msg.includes(url), `the message names ${url}: ${line.msg}`);
        }
        assert.doesNotMatch(line.msg, /off until/);
        const docs = await fetch(line.docs);
        assert.equal(docs.status, 200);
        assert.match(String(docs.headers.get('content-type')), /^text\/html/);
        for (const url of [line.dashboard, line.console]) {
          // The apps answer 503 until `npm run build` has built them; 404 would be a wrong address.
          const page = await fetch(url);
          await page.arrayBuffer();
          assert.ok([200, 503].includes(page.status), `${url}: ${page.status}`);
        }
      } finally {
        await stopServer(server, 'SIGTERM');
      }
    });

    it('logs them under PUBLIC_URL when it is set, and says the console is off without ADMIN_API_KEY', async () => {
      const port = await freePort();
      const server = spawnServer(
        serverEnv(database, { PORT: String(port), PUBLIC_URL: 'https://baas.example.com' }),
      );
      try {
        await waitUntilReady(server, '/readyz', 60_000);
        const line = await pagesLine(server);
        assert.equal(line.dashboard, 'https://baas.example.com/dashboard');
        assert.equal(line.console, 'https://baas.example.com/console');
        assert.equal(line.docs, 'https://baas.example.com/docs');
        assert.match(
          line.msg,
          /console https:\/\/baas\.example\.com\/console \(off until ADMIN_API_KEY is set\)/,
        );
      } finally {
        await stopServer(server, 'SIGTERM');
      }
    });

    it("operator invite prints its link on the server's PORT and HOST when PUBLIC_URL is unset", async () => {
      const started = await startApp(database);
      try {
        const port = new URL(started.url).port;
        const email = uniqueEmail('first-admin');
        const run = await runScript(
          database,
          'operator.ts',
          ['invite', '--email', email, '--role', 'admin'],
          {
            PORT: port,
            HOST: '127.0.0.1',
          },
        );
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        const link = new RegExp(
          `^http://127\\.0\\.0\\.1:${port}/console/setup#token=([A-Za-z0-9_-]{43})$`,
          'm',
        ).exec(run.stdout);
        assert.ok(link, `a link on port ${port}:\n${run.stdout}`);
        assert.equal(run.stderr, '', 'no warning: the server answers there');
        // The link opens on that server: its token is the invitation's.
        const opened = await new Api(started.url).post(INVITATION_LOOKUP, {
          token: link[1],
        });
        assert.equal(opened.status, 200, opened.text);
        assert.equal(opened.body.data.email, email);
      } finally {
        await started.stop();
      }
    });

    it('operator invite warns, naming the address, when no server answers where its link points', async () => {
      const port = String(await freePort());
      const run = await runScript(
        database,
        'operator.ts',
        ['invite', '--email', uniqueEmail('elsewhere'), '--role', 'admin'],
        { PORT: port },
      );
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, new RegExp(`^http://127\\.0\\.0\\.1:${port}/console/setup#token=`, 'm'));
      assert.match(run.stderr, new RegExp(`^No server answers at http://127\\.0\\.0\\.1:${port}, `));
      assert.match(run.stderr, /PORT and HOST the server was started with/);
    });
  });
}
