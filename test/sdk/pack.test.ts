import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { useApp } from '../support/app.js';
import { newPartner } from '../support/partners.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SDK = path.join(ROOT, 'sdk');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command without blocking this process (the app under test answers from it); fails loudly. */
async function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    return await run(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 32 * 1024 * 1024,
      timeout: 120_000,
    });
  } catch (error) {
    const failure = error as Error & { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')} failed in ${cwd}:\n${failure.stdout}\n${failure.stderr}`);
  }
}

/** A TypeScript file of a partner's: it must compile against the installed package's .d.ts. */
const CONSUMER_TS = `import {
  ApiError,
  BaasClient,
  type ErrorCode,
  type Transfer,
  type TransferStatus,
  TransferWaitTimeoutError,
  type VirtualAccount,
  type WebhookEvent,
  WebhookVerificationError,
  webhooks,
} from '@baas/sdk';

const client = new BaasClient({ baseUrl: 'http://127.0.0.1:3000', token: 'sk_sandbox_x', maxRetries: 2 });

export async function open(email: string): Promise<VirtualAccount> {
  const account = await client.virtualAccounts.create(
    { first_name: 'Ada', last_name: 'Obi', email, phone: '+2348090000000' },
    { idempotencyKey: 'order-1' },
  );
  const status: 'active' | 'inactive' | 'closed' = account.status;
  for await (const item of client.virtualAccounts.list({ status: 'active', limit: 10 })) {
    const number: string = item.account_number;
    void number;
  }
  const statement = await client.virtualAccounts.statement(account.account_number, { from: '2026-01-01', to: '2026-01-31' });
  const closing: number = statement.closing_balance;
  void status;
  void closing;
  // @ts-expect-error phone is required
  await client.virtualAccounts.create({ first_name: 'Ada', last_name: 'Obi', email });
  // @ts-expect-error no such status
  client.virtualAccounts.list({ status: 'frozen' });
  return account;
}

export async function pay(source: string, reference: string): Promise<Transfer> {
  const payee = await client.transfers.nameEnquiry({ bank_code: '000013', account_number: '0123456789' });
  const transfer = await client.transfers.create(
    { source_account_number: source, amount: 1000, bank_code: payee.bank_code, account_number: payee.account_number, reference },
    { idempotencyKey: reference },
  );
  try {
    const settled = await client.transfers.waitForFinal(transfer.id, { timeoutMs: 60_000 });
    const status: TransferStatus = settled.status;
    void status;
    return settled;
  } catch (error) {
    if (error instanceof TransferWaitTimeoutError) return error.transfer;
    throw error;
  }
}

export function codeOf(error: unknown): ErrorCode | null {
  if (error instanceof ApiError) {
    const fields: Record<string, string[]> = error.errors;
    void fields;
    const id: string | null = error.requestId;
    void id;
    return error.errorCode;
  }
  return null;
}

export async function handle(body: string, headers: Headers, secret: string): Promise<string> {
  try {
    const event: WebhookEvent = await webhooks.verify(body, headers, [secret]);
    switch (event.type) {
      case 'virtual_account.credited':
        return event.data.account.account_number + event.data.transaction.amount.toFixed(2);
      case 'virtual_account.created':
        // @ts-expect-error a created account has no transaction
        return event.data.transaction;
      case 'transfer.successful':
      case 'transfer.failed':
      case 'transfer.reversed':
        return event.data.reference + event.data.beneficiary.account_name;
      default:
        return event.type;
    }
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}
`;

describe('the packed SDK installed in a clean folder', () => {
  const suite = useApp('sqlite', { env: { WEBHOOK_POLL_MS: '50' } });
  const scratch = mkdtempSync(path.join(tmpdir(), 'baas-sdk-pack-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('npm pack (build on prepack), npm install <tarball>, the README quickstart against the real server, a consumer type-checks against the shipped .d.ts', async () => {
    // The published tarball: built from the sources, with dist, the example and the README only.
    // `npm pack` runs the package's prepack script, `npm run build` (generate, then tsc to dist).
    const packDir = path.join(scratch, 'pack');
    mkdirSync(packDir);
    const startedAt = Date.now();
    const packed = await sh(npm, ['pack', '--pack-destination', packDir, '--json', '--silent'], SDK);
    assert.ok(
      statSync(path.join(SDK, 'dist', 'index.js')).mtimeMs >= startedAt - 1000,
      'dist was built afresh',
    );
    const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    assert.ok(manifest);
    const files = manifest.files.map((file) => file.path).sort();
    for (const required of [
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/generated/partner.d.ts',
      'examples/quickstart.mjs',
      'package.json',
    ]) {
      assert.ok(files.includes(required), `${required} is in the tarball: ${files.join(', ')}`);
    }
    assert.ok(
      !files.some((file) => file.startsWith('src/') || file.startsWith('scripts/')),
      files.join(', '),
    );
    const tarball = path.join(packDir, manifest.filename);

    // A partner's empty project installs it from the tarball (openapi-fetch comes from the registry).
    const consumer = path.join(scratch, 'consumer');
    mkdirSync(consumer);
    await sh(npm, ['init', '-y'], consumer);
    await sh(npm, ['install', '--no-audit', '--no-fund', tarball], consumer);
    const installed = JSON.parse(readFileSync(path.join(consumer, 'package.json'), 'utf8'));
    assert.match(installed.dependencies['@baas/sdk'], /^file:/);
    const lock = JSON.parse(readFileSync(path.join(consumer, 'package-lock.json'), 'utf8'));
    assert.deepEqual(
      Object.keys(lock.packages)
        .filter((name) => name !== '')
        .sort(),
      ['node_modules/@baas/sdk', 'node_modules/openapi-fetch', 'node_modules/openapi-typescript-helpers'],
      'the only runtime dependency is openapi-fetch (and its type helpers)',
    );

    // The README's example is the shipped quickstart, byte for byte.
    const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
    const example = readFileSync(path.join(SDK, 'examples', 'quickstart.mjs'), 'utf8');
    const block = /<!-- quickstart.mjs -->\n```js\n([\s\S]*?)```/.exec(readme);
    assert.ok(block, 'sdk/README.md has the quickstart block');
    assert.equal(block[1], example, 'sdk/README.md shows examples/quickstart.mjs as it is');

    // Run it as a partner would, against the real server with a sandbox API key made through the API.
    const partner = await newPartner(suite, 'sandbox');
    copyFileSync(path.join(SDK, 'examples', 'quickstart.mjs'), path.join(consumer, 'quickstart.mjs'));
    const { stdout } = await sh(process.execPath, ['quickstart.mjs'], consumer, {
      BAAS_URL: suite.t.url,
      BAAS_API_KEY: partner.sandboxKey,
    });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 6, stdout);
    const [created, exists, credited, sent, active, webhook] = lines as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const number = /^Created account (\d{10}) \(.+\/Tunde Bakare, BaaS Partner Bank\)$/.exec(created)?.[1];
    assert.ok(number, created);
    assert.match(exists, new RegExp(`^Already exists: ${number} \\(HTTP 409, request \\S+\\)$`));
    assert.equal(credited, 'Credited NGN 2500.75; balance NGN 2500.75');
    assert.equal(
      sent,
      'Sent NGN 1000.00 to SANDBOX BENEFICIARY (Guaranty Trust Bank): successful, fee NGN 10.75',
    );
    assert.equal(active, 'Active accounts: 1');
    assert.equal(webhook, 'Webhook verified: virtual_account.credited of NGN 2500.75');
    // It left no endpoint behind (the partner had none).
    const endpoint = await suite.t.api.get('/baas/api/v1/services/partner/settings/webhook', {
      token: partner.sandboxKey,
    });
    assert.equal(endpoint.status, 404, endpoint.text);

    // The shipped declarations serve a strict TypeScript consumer (an ES module, Node types, no DOM lib).
    writeFileSync(path.join(consumer, 'consumer.mts'), CONSUMER_TS);
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        },
        files: ['consumer.mts'],
      }),
    );
    await sh(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
  });
});
