import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DIALECTS, TEST_DATABASE_URL } from '../support/app.js';
import { until } from '../support/assertions.js';

/*
 * What a test run leaves behind when a test file cannot clean up after itself: a file SIGKILLed, a file
 * past its timeout, the runner itself SIGKILLed. The fixture starts the real server twice (once in a
 * process group of its own) and a temp folder, then hangs; scripts/test.mjs and the lifeline preload
 * must end both servers, close their PostgreSQL connections and remove the folder within seconds.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join('test', 'platform', 'fixtures', 'leaves-servers.ts');
/** Lifeline polls every 250 ms per generation (runner, test file, server): a few seconds is plenty. */
const CLEANUP_MS = 5_000;

const hasProc = existsSync('/proc/self/stat');
const dialect = DIALECTS.find((entry) => entry.name === 'postgres')!.skip ? 'sqlite' : 'postgres';

/** Whether `pid` has ended (a zombie nobody reaped yet has ended too). */
function ended(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return ['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0]!);
  } catch {
    return true;
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function connectionsNamed(applicationName: string): Promise<number> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      'select count(*) from pg_stat_activity where application_name = $1',
      [applicationName],
    );
    return Number(result.rows[0]!.count);
  } finally {
    await client.end();
  }
}

async function schemaExists(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const result = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
    return result.rows.length > 0;
  } finally {
    await client.end();
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

interface Report {
  testFile: number;
  servers: number[];
  dataDir: string;
  /** The test database's PostgreSQL schema, on PostgreSQL. */
  pgSchema?: string;
  /** The nested run's TMPDIR. */
  tmpdir: string;
  /** Whether both servers answered /readyz. */
  ready: boolean;
}

interface NestedRun {
  runner: ChildProcess;
  exited: Promise<number | string | null>;
  output(): string;
  report: Report;
  applicationName: string;
}

describe('cleanup after a test file that cannot clean up', { skip: hasProc ? false : 'needs /proc' }, () => {
  let scratch: string;
  const runners: ChildProcess[] = [];
  /** What a SIGKILLed runner cannot drop (a later run drops only its own). */
  const leftSchemas: string[] = [];

  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'baas-hygiene-'));
  });
  after(async () => {
    for (const runner of runners)
      if (runner.exitCode === null && runner.signalCode === null) runner.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
    for (const schema of leftSchemas) await dropSchema(schema);
  });

  /** `node scripts/test.mjs <fixture> ...args`, once the fixture has its servers up. */
  async function startRun(name: string, args: string[] = [], waitForServers = true): Promise<NestedRun> {
    const reportFile = path.join(scratch, `${name}.json`);
    const applicationName = `baas-hygiene-${randomBytes(4).toString('hex')}`;
    // Without NODE_TEST_CONTEXT, which would make the nested node --test refuse to run files.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const runner = spawn(process.execPath, ['scripts/test.mjs', FIXTURE, ...args], {
      cwd: ROOT,
      env: {
        ...env,
        HYGIENE_REPORT: reportFile,
        HYGIENE_DIALECT: dialect,
        HYGIENE_APP_NAME: applicationName,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    runners.push(runner);
    let output = '';
    runner.stdout?.on('data', (chunk) => {
      output += String(chunk);
    });
    runner.stderr?.on('data', (chunk) => {
      output += String(chunk);
    });
    const exited = new Promise<number | string | null>((resolve) =>
      runner.once('exit', (code, signal) => resolve(code ?? signal)),
    );
    let exit: number | string | null | undefined;
    void exited.then((code) => {
      exit = code;
    });
    const report = await until(
      'the fixture to report its servers',
      () => {
        if (exit !== undefined)
          assert.fail(`the run ended (${exit}) before the fixture reported:\n${output}`);
        if (!existsSync(reportFile)) return undefined;
        const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
        return report.ready || !waitForServers ? report : undefined;
      },
      90_000,
      100,
    );
    if (dialect === 'postgres' && waitForServers)
      assert.ok((await connectionsNamed(applicationName)) > 0, 'the servers use PostgreSQL');
    return { runner, exited, output: () => output, report, applicationName };
  }

  /** Both servers and the test file end, and their PostgreSQL connections close, within CLEANUP_MS. */
  async function assertProcessesEnd(run: NestedRun, what: string): Promise<number> {
    const started = Date.now();
    await until(
      `${what}: the test file and both servers to end`,
      () => [run.report.testFile, ...run.report.servers].every(ended),
      CLEANUP_MS,
      50,
    );
    if (dialect === 'postgres') {
      await until(
        `${what}: the servers' PostgreSQL connections to close`,
        async () => (await connectionsNamed(run.applicationName)) === 0,
        CLEANUP_MS,
        100,
      );
    }
    return Date.now() - started;
  }

  it('ends the servers and removes the temp folder when the node --test process is SIGKILLed', async (t) => {
    const run = await startRun('sigkill-node-test');
    const nodeTest = childrenOf(run.runner.pid!).find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--test'),
    );
    assert.ok(nodeTest, 'scripts/test.mjs runs node --test');
    process.kill(nodeTest, 'SIGKILL');
    t.diagnostic(`ended ${await assertProcessesEnd(run, 'node --test SIGKILLed')} ms after the kill`);
    const code = await Promise.race([
      run.exited,
      new Promise((resolve) => setTimeout(resolve, CLEANUP_MS, 'still running')),
    ]);
    assert.notEqual(code, 'still running', `scripts/test.mjs ends:\n${run.output()}`);
    assert.notEqual(code, 0, 'the run failed');
    assert.equal(existsSync(run.report.dataDir), false, 'the test database folder is gone');
    assert.equal(existsSync(run.report.tmpdir), false, "the run's TMPDIR is gone");
    if (run.report.pgSchema)
      assert.equal(await schemaExists(run.report.pgSchema), false, 'the runner dropped its schema');
  });

  let staleRunDir: string | undefined;

  it('ends the servers when scripts/test.mjs itself is SIGKILLed, and the next run removes its folder', async (t) => {
    const run = await startRun('sigkill-runner');
    run.runner.kill('SIGKILL');
    t.diagnostic(`ended ${await assertProcessesEnd(run, 'scripts/test.mjs SIGKILLed')} ms after the kill`);
    // Nothing was left to remove it; the next run's sweep does (next test).
    assert.equal(existsSync(run.report.tmpdir), true, 'the killed run left its TMPDIR');
    staleRunDir = run.report.tmpdir;
    if (run.report.pgSchema) leftSchemas.push(run.report.pgSchema);
  });

  it('ends the servers and removes the temp folder when the file times out, and sweeps older runs', async (t) => {
    // The file may time out before its servers are ready under load: they are started, and must end.
    const run = await startRun('timeout', ['--test-timeout=30000'], false);
    if (staleRunDir) assert.equal(existsSync(staleRunDir), false, 'the SIGKILLed run’s TMPDIR was swept');
    const code = await Promise.race([
      run.exited,
      new Promise((resolve) => setTimeout(resolve, 40_000, 'still running')),
    ]);
    assert.notEqual(code, 'still running', `scripts/test.mjs ends after the timeout:\n${run.output()}`);
    assert.notEqual(code, 0, 'the run failed');
    assert.match(run.output(), /timed out after 30000ms/);
    t.diagnostic(`ended ${await assertProcessesEnd(run, 'file timed out')} ms after the runner exited`);
    assert.equal(existsSync(run.report.tmpdir), false, "the run's TMPDIR is gone");
    if (run.report.pgSchema)
      assert.equal(await schemaExists(run.report.pgSchema), false, 'the runner dropped its schema');
  });
});
