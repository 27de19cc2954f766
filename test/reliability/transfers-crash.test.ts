import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import {
  createTestDatabase,
  DIALECTS,
  TEST_ADMIN_KEY,
  TEST_CONNECTOR_SECRET,
  type TestDatabase,
} from '../support/app.js';
import { notification, notify } from '../support/bank.js';
import { type FakeBank, fakeSessionId, type Reply, startFakeBank } from '../support/fake-bank.js';
import type { Api } from '../support/http.js';
import { ledgerProblems } from '../support/ledger.js';
import { createAccount, newPartner } from '../support/partners.js';
import { API_PREFIX } from '../support/paths.js';
import { ChildServer, serverEnv, signalServer, stopServer } from '../support/server-process.js';
import { freePort, SmtpSink } from '../support/smtp-sink.js';

/*
 * Money out across crashes: the real server sends live transfers through the sponsor bank's connector
 * (a fake that answers late, drops connections, answers 5xx or 09) and is SIGKILLed again and again,
 * while transfers are being accepted and while the worker hands them to the bank and asks after them.
 * Whatever a kill cut off, each transfer exists once, reaches the bank at most once, ends final, and
 * the ledger (entries, balances, holds) adds up.
 */

const TRANSFERS = 200;
const WAVE = 25;
const ACCOUNTS = 4;
const FUNDING_NOTIFICATIONS = 3;
const FUNDING_KOBO = 50_000_000;
/** Beneficiaries at the other bank; the first FAILING of them are refused by it (05). */
const BENEFICIARIES = 6;
const FAILING = 2;
const BANK_CODE = '000013';
/** Kills while transfers are being accepted, by wave: right after a burst of 202s, or at a random moment. */
const KILLS_DURING_SENDS = new Map<number, 'burst' | 'random'>([
  [0, 'burst'],
  [1, 'random'],
  [2, 'burst'],
]);
const BURST = 8;
/** Kills while only the worker is busy (handing transfers to the bank, asking after them). */
const KILLS_DURING_SETTLEMENT = 3;
const CONNECTOR_TIMEOUT_MS = 300;
const REQUERY_MS = 100;
/** The first status query waits out the send: max(TRANSFER_REQUERY_MS, BANK_CONNECTOR_TIMEOUT_MS + 1 s). */
const FIRST_QUERY_MS = Math.max(REQUERY_MS, CONNECTOR_TIMEOUT_MS + 1000);
/**
 * A request cut by a kill may leave its Idempotency-Key in progress: the server reclaims it after
 * 60 s (src/platform/idempotency/idempotency.ts), so the partner's retry gets a definite answer by
 * then. The partner keeps retrying until this long after the last restart.
 */
const SEND_DEADLINE_AFTER_RESTART_MS = 75_000;
/** A killed process's lease on a transfer lasts BANK_CONNECTOR_TIMEOUT_MS + 30 s (src/app.ts). */
const SETTLE_AFTER_LAST_RESTART_MS = 45_000;
const TRANSFERS_PATH = `${API_PREFIX}/services/transfers`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms).unref(),
    ),
  ]);

const naira = (kobo: number) => `${Math.floor(kobo / 100)}.${String(kobo % 100).padStart(2, '0')}`;

interface Planned {
  reference: string;
  idempotencyKey: string;
  source: string;
  beneficiary: string;
  amountKobo: number;
  failing: boolean;
}

/** What the partner learnt about one transfer it asked for. */
interface Sent {
  planned: Planned;
  /** The transfer's id, from a 202 (first or replayed) or the 409 DUPLICATE_REFERENCE's data. */
  id?: string;
  /** How the definite answer came: 202, a replayed 202, or 409 DUPLICATE_REFERENCE. */
  answer?: 'accepted' | 'replayed' | 'duplicate';
  /** Attempts without an answer (the process died with them in flight, or was down). */
  cut: number;
  /** Answers 409 IDEMPOTENCY_IN_PROGRESS: a key a killed request had claimed. */
  inProgress: number;
  /** Answers 503 BANK_UNAVAILABLE: the name enquiry before anything was held got no answer. */
  bankUnavailable: number;
  /** From the first attempt to the definite answer. */
  answeredInMs?: number;
  /** Any other answer (there should be none). */
  refused?: string;
  firstTry: Promise<void>;
  done: Promise<void>;
}

interface Kill {
  atMs: number;
  phase: string;
  /** Requests to the server awaiting an answer when the kill came. */
  requestsInFlight: number;
  /** Transfers pending or processing when the kill came. */
  openTransfers: number;
  /** From the new process's spawn to its /readyz. */
  restartMs?: number;
}

function plan(accounts: readonly string[], beneficiaries: readonly string[], tag: string): Planned[] {
  const run = randomBytes(4).toString('hex');
  return Array.from({ length: TRANSFERS }, (_, index) => {
    const at = randomInt(beneficiaries.length);
    return {
      reference: `crash-${tag}-${run}-${index}`,
      idempotencyKey: `idem-${tag}-${run}-${index}`,
      source: accounts[randomInt(accounts.length)]!,
      beneficiary: beneficiaries[at]!,
      amountKobo: randomInt(100, 2_000_001),
      failing: at < FAILING,
    };
  });
}

/** The bank's answers to a first POST /transfers: late, dropped, 5xx, 09, or past our timeout. */
function transferReplies(count: number, failing: boolean): Reply[] {
  const code = failing ? { responseCode: '05' } : {};
  return Array.from({ length: count }, (): Reply => {
    const delayMs = randomInt(0, 151);
    const roll = randomInt(100);
    if (roll < 55) return { delayMs, ...code };
    if (roll < 67) return failing ? { delayMs, ...code } : { delayMs, responseCode: '09' };
    // Took it, then the connection died: only a status query can tell.
    if (roll < 77) return { delayMs, drop: true, ...code };
    if (roll < 84) return { delayMs, status: [500, 502, 503][randomInt(3)]!, ...code };
    // Never took it (a 503 before anything was recorded): the status query answers 25.
    if (roll < 88) return { delayMs, status: 503, accept: false };
    if (roll < 94)
      return { delayMs: randomInt(CONNECTOR_TIMEOUT_MS + 50, CONNECTOR_TIMEOUT_MS + 200), ...code };
    return { delayMs, ...code };
  });
}

/** The bank's answers to status queries: the transfer as it stands, unless late, dropped or 5xx. */
function queryReplies(count: number): Reply[] {
  const replies = Array.from({ length: count }, (): Reply => {
    const delayMs = randomInt(0, 151);
    const roll = randomInt(100);
    if (roll < 75) return { delayMs };
    if (roll < 85) return { delayMs, drop: true };
    if (roll < 93) return { delayMs, status: 503 };
    return { delayMs: randomInt(CONNECTOR_TIMEOUT_MS + 50, CONNECTOR_TIMEOUT_MS + 200) };
  });
  replies.push({});
  return replies;
}

const tally = (values: readonly string[]) => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

// The dialects' suites are independent (a database, a fake bank and a server each): side by side.
describe('transfers across crashes', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`live transfers through the connector, the server SIGKILLed again and again [${dialect.name}]`, {
      skip: dialect.skip,
      timeout: 240_000,
    }, () => {
      let database: TestDatabase | undefined;
      let handle: DatabaseHandle | undefined;
      let sink: SmtpSink | undefined;
      let bank: FakeBank | undefined;
      let server: ChildServer | undefined;
      let settler: NodeJS.Timeout | undefined;
      /** Set when the suite ends: background retries stop. */
      let stopped = false;
      const reap = () => {
        const pid = server?.process?.child.pid;
        if (pid === undefined) return;
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {}
      };

      let partnerId = 0;
      const accounts: Array<{ id: string; account_number: string }> = [];
      const sent: Sent[] = [];
      const kills: Kill[] = [];
      const phases: Record<string, number> = {};
      let lastRestartAt = 0;
      let requestsInFlight = 0;
      let stopExit: number | string | null | undefined;
      const serverErrors: string[] = [];

      const openTransfers = async () => {
        const rows = await handle!.db
          .selectFrom('transfers')
          .select('status')
          .where('partner_id', '=', partnerId)
          .where('status', 'in', ['pending', 'processing'])
          .execute();
        return rows.length;
      };

      /** Log lines of level error or worse (pino: 50, 60) a process wrote. */
      const collectErrors = (output: string) => {
        for (const line of output.split('\n')) {
          if (/"level":(50|60)\b/.test(line)) serverErrors.push(line.slice(0, 400));
        }
      };

      const killAndRestart = async (phase: string, started: number) => {
        const kill: Kill = {
          atMs: Date.now() - started,
          phase,
          requestsInFlight,
          openTransfers: 0,
        };
        const running = server!.process!;
        signalServer(running, 'SIGKILL');
        assert.equal(await withTimeout(running.exited, 15_000, 'the killed server to exit'), 'SIGKILL');
        collectErrors(running.output());
        await server!.kill();
        kill.openTransfers = await openTransfers();
        kills.push(kill);
        const restarting = Date.now();
        await server!.start();
        lastRestartAt = Date.now();
        kill.restartMs = lastRestartAt - restarting;
      };

      /** Asks for one transfer until a definite answer, as a partner would: same key, same reference. */
      function send(api: Api, token: string, planned: Planned): Sent {
        let markFirst: () => void = () => {};
        const entry = {
          planned,
          cut: 0,
          inProgress: 0,
          bankUnavailable: 0,
          firstTry: new Promise<void>((resolve) => {
            markFirst = resolve;
          }),
        } as Sent;
        const body = {
          source_account_number: planned.source,
          amount: naira(planned.amountKobo),
          bank_code: BANK_CODE,
          account_number: planned.beneficiary,
          reference: planned.reference,
        };
        const started = Date.now();
        entry.done = (async () => {
          while (!stopped && Date.now() < lastRestartAt + SEND_DEADLINE_AFTER_RESTART_MS) {
            requestsInFlight++;
            let response: Awaited<ReturnType<Api['post']>> | undefined;
            try {
              response = await withTimeout(
                api.post(TRANSFERS_PATH, body, {
                  token,
                  headers: { 'idempotency-key': planned.idempotencyKey },
                }),
                20_000,
                `POST ${planned.reference}`,
              );
            } catch {
              entry.cut++;
            } finally {
              requestsInFlight--;
              markFirst();
            }
            if (response === undefined) {
              await sleep(100);
              continue;
            }
            entry.answeredInMs = Date.now() - started;
            if (response.status === 202) {
              entry.id = response.body.data.id;
              entry.answer = response.headers.get('idempotent-replayed') === 'true' ? 'replayed' : 'accepted';
              return;
            }
            if (response.status === 409 && response.body.error_code === 'DUPLICATE_REFERENCE') {
              entry.id = response.body.data.id;
              entry.answer = 'duplicate';
              return;
            }
            if (response.status === 503 && response.body.error_code === 'BANK_UNAVAILABLE') {
              // The name enquiry got no answer in time: nothing was held, the partner tries again.
              entry.bankUnavailable++;
              await sleep(200);
              continue;
            }
            if (response.status === 409 && response.body.error_code === 'IDEMPOTENCY_IN_PROGRESS') {
              entry.inProgress++;
              await sleep(1000);
              continue;
            }
            entry.refused = `${response.status} ${response.text}`;
            return;
          }
        })();
        return entry;
      }

      before(
        async () => {
          const started = Date.now();
          const mark = (phase: string, since: number) => {
            phases[phase] = Date.now() - since;
          };
          process.once('exit', reap);
          database = await createTestDatabase(dialect.name);
          sink = await new SmtpSink().start();
          bank = await startFakeBank({ secret: TEST_CONNECTOR_SECRET });
          const env = serverEnv(database, {
            LOG_LEVEL: 'warn',
            ADMIN_API_KEY: TEST_ADMIN_KEY,
            SMTP_URL: sink.url,
            BANK_CONNECTOR_URL: bank.url,
            BANK_CONNECTOR_SECRET: TEST_CONNECTOR_SECRET,
            BANK_CONNECTOR_TIMEOUT_MS: String(CONNECTOR_TIMEOUT_MS),
            TRANSFER_REQUERY_MS: String(REQUERY_MS),
            TRANSFER_POLL_MS: '20',
          });
          server = new ChildServer(await freePort(), env, { detached: true });
          await server.start();
          lastRestartAt = Date.now();
          handle = database.open();
          const api = server.api;

          const partner = await newPartner({ t: { api }, sink }, 'live');
          partnerId = partner.companyId;
          for (let i = 0; i < ACCOUNTS; i++) {
            const account = await createAccount({ api }, partner.liveKey);
            accounts.push(account);
            for (let n = 0; n < FUNDING_NOTIFICATIONS; n++) {
              const credited = await notify(
                api,
                notification(account.account_number, { amount_kobo: FUNDING_KOBO }),
              );
              assert.equal(credited.status, 200, credited.text);
              assert.equal(credited.body.data.outcome, 'credited', credited.text);
            }
          }
          mark('setup', started);

          const beneficiaries = Array.from({ length: BENEFICIARIES }, () =>
            String(randomInt(1_000_000_000, 10_000_000_000)),
          );
          bank.scriptAll({ transfer: transferReplies(TRANSFERS * 2, false), query: queryReplies(5_000) });
          for (const beneficiary of beneficiaries.slice(0, FAILING)) {
            bank.script(beneficiary, { transfer: transferReplies(TRANSFERS, true) });
          }
          // The bank settles what it answered 09 to, some time later: mostly done, sometimes refused.
          settler = setInterval(() => {
            for (const transfer of bank!.transfers.values()) {
              if (transfer.status !== 'pending' || randomInt(100) >= 35) continue;
              if (randomInt(100) < 85) {
                transfer.status = 'successful';
                transfer.responseCode = '00';
                transfer.session_id = fakeSessionId();
              } else {
                transfer.status = 'failed';
                transfer.responseCode = '05';
              }
            }
          }, 250);

          const planned = plan(
            accounts.map((account) => account.account_number),
            beneficiaries,
            dialect.name,
          );
          const sendsStarted = Date.now();
          for (let wave = 0; wave * WAVE < planned.length; wave++) {
            const entries = planned
              .slice(wave * WAVE, (wave + 1) * WAVE)
              .map((entry) => send(api, partner.liveKey, entry));
            sent.push(...entries);
            const firstTries = Promise.all(entries.map((entry) => entry.firstTry));
            const kill = KILLS_DURING_SENDS.get(wave);
            if (kill === 'burst') {
              let answered = false;
              void firstTries.then(() => {
                answered = true;
              });
              while (!answered && entries.filter((entry) => entry.answer === 'accepted').length < BURST) {
                await sleep(2);
              }
              await killAndRestart(`wave ${wave}: right after a burst of 202s`, started);
            } else if (kill === 'random') {
              await sleep(randomInt(10, 250));
              await killAndRestart(`wave ${wave}: at a random moment`, started);
            }
            await firstTries;
            await sleep(randomInt(0, 150));
          }
          mark('sends (first tries)', sendsStarted);

          const settlementStarted = Date.now();
          for (let n = 0; n < KILLS_DURING_SETTLEMENT; n++) {
            await sleep(randomInt(100, 1_500));
            await killAndRestart(`settlement ${n + 1}`, started);
          }
          await Promise.all(sent.map((entry) => entry.done));
          mark('sends (to a definite answer)', sendsStarted);

          const settleDeadline = Math.max(lastRestartAt + SETTLE_AFTER_LAST_RESTART_MS, Date.now() + 10_000);
          while (!stopped && Date.now() < settleDeadline && (await openTransfers()) > 0) await sleep(250);
          mark('settlement after the last send', settlementStarted);
          mark('total', started);

          const last = server.process!;
          collectErrors(last.output());
          stopExit = await withTimeout(stopServer(last, 'SIGTERM'), 15_000, 'SIGTERM');
          await server.kill();
          clearInterval(settler);
        },
        { timeout: 200_000 },
      );

      after(async () => {
        stopped = true;
        clearInterval(settler);
        await server?.dispose().catch(() => undefined);
        process.off('exit', reap);
        await bank?.close().catch(() => undefined);
        await handle?.close().catch(() => undefined);
        await sink?.stop().catch(() => undefined);
        await database?.drop();
      });

      it('was killed at least 5 times, some with requests in flight, and every transfer got a definite answer', (t) => {
        const answers = tally(sent.map((entry) => entry.answer ?? 'none'));
        const count = (field: 'cut' | 'inProgress' | 'bankUnavailable') => {
          const hit = sent.filter((entry) => entry[field] > 0);
          return `${hit.length} (${hit.reduce((sum, entry) => sum + entry[field], 0)} times)`;
        };
        const slowest = Math.max(0, ...sent.map((entry) => entry.answeredInMs ?? 0));
        t.diagnostic(
          `kills: ${kills.length}: ${kills
            .map(
              (kill) =>
                `${kill.phase} at ${kill.atMs} ms (${kill.requestsInFlight} requests in flight, ${kill.openTransfers} transfers open, up again in ${kill.restartMs} ms)`,
            )
            .join('; ')}`,
        );
        t.diagnostic(
          `transfers: ${sent.length} asked, answers ${JSON.stringify(answers)}; attempts cut by a kill: ${count('cut')}; ` +
            `409 IDEMPOTENCY_IN_PROGRESS: ${count('inProgress')}; 503 BANK_UNAVAILABLE: ${count('bankUnavailable')}; ` +
            `slowest to a definite answer: ${slowest} ms`,
        );
        t.diagnostic(`durations (ms): ${JSON.stringify(phases)}`);
        t.diagnostic(`server log lines at error level: ${serverErrors.length}`);
        for (const line of serverErrors.slice(0, 5)) t.diagnostic(line);

        assert.ok(kills.length >= 5, `${kills.length} kills`);
        assert.ok(
          kills.some((kill) => kill.requestsInFlight > 0),
          'some kills came with requests in flight',
        );
        assert.ok(
          kills.some((kill) => kill.openTransfers > 0),
          'some kills came with transfers in the worker’s hands',
        );
        assert.deepEqual(
          sent.filter((entry) => entry.refused !== undefined).map((entry) => entry.refused),
          [],
          'no transfer was refused',
        );
        assert.deepEqual(
          sent.filter((entry) => entry.id === undefined).map((entry) => entry.planned.reference),
          [],
          `every transfer got a 202 or 409 DUPLICATE_REFERENCE within ${SEND_DEADLINE_AFTER_RESTART_MS} ms of the last restart`,
        );
        assert.ok(
          sent.some((entry) => entry.cut > 0),
          'some requests were cut by a kill',
        );
      });

      it('holds each transfer once, under its reference and the id the partner was given', async () => {
        const rows = await handle!.db
          .selectFrom('transfers')
          .select(['id', 'reference'])
          .where('partner_id', '=', partnerId)
          .execute();
        const byReference = new Map<string, string[]>();
        for (const row of rows)
          byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), row.id]);
        for (const entry of sent) {
          const ids = byReference.get(entry.planned.reference) ?? [];
          assert.equal(ids.length, 1, `${entry.planned.reference}: ${ids.length} transfers`);
          assert.equal(ids[0], entry.id, `${entry.planned.reference}: the id the partner was given`);
        }
        assert.equal(rows.length, sent.length, 'no transfer nobody asked for');
      });

      it('ends every transfer final (or processing with a status query due), the bank and the ledger agreeing', async (t) => {
        const rows = await handle!.db
          .selectFrom('transfers')
          .select([
            'id',
            'reference',
            'status',
            'amount_kobo',
            'fee_kobo',
            'account_id',
            'next_query_at',
            'sent_at',
            'failure_reason',
          ])
          .where('partner_id', '=', partnerId)
          .execute();
        const statuses = tally(rows.map((row) => row.status));
        const posts = bank!.requests.filter(
          (request) => request.method === 'POST' && request.path === '/transfers',
        );
        const queries = bank!.requests.filter((request) => request.method === 'GET');
        t.diagnostic(
          `final: ${JSON.stringify(statuses)}; the bank saw ${posts.length} POST /transfers and ${queries.length} status queries, ` +
            `${bank!.signatureFailures} bad signatures; it holds ${JSON.stringify(tally([...bank!.transfers.values()].map((transfer) => transfer.status)))}`,
        );
        assert.deepEqual(
          rows.filter((row) => row.status === 'pending').map((row) => row.reference),
          [],
          'no transfer left pending: each was handed to the bank',
        );
        assert.deepEqual(
          rows
            .filter((row) => row.status === 'processing' && row.next_query_at === null)
            .map((row) => row.reference),
          [],
          'a transfer still processing has its next status query due',
        );
        assert.deepEqual(
          rows.filter((row) => row.status === 'reversed').map((row) => row.reference),
          [],
          'no transfer reversed: the bank returned nothing',
        );
        assert.equal(bank!.signatureFailures, 0);

        const ours = new Set(rows.map((row) => row.id));
        const strangers = posts.filter(
          (request) =>
            !ours.has(String((request.body as Record<string, unknown> | undefined)?.['reference'])),
        );
        assert.equal(strangers.length, 0, 'every POST to the bank carries one of our transfer ids');
        for (const row of rows) {
          const taken = bank!.transfers.get(row.id);
          assert.ok(bank!.posts(row.id) <= 1, `${row.reference}: POSTed ${bank!.posts(row.id)} times`);
          if (row.status === 'successful') {
            assert.equal(bank!.posts(row.id), 1, `${row.reference}: successful, so the bank took it`);
            assert.equal(taken?.status, 'successful', `${row.reference}: the bank says ${taken?.status}`);
          }
          if (row.status === 'failed') {
            assert.ok(
              taken === undefined || taken.status === 'failed',
              `${row.reference}: failed here, ${taken?.status} at the bank`,
            );
          }
          if (row.status !== 'pending') assert.notEqual(row.sent_at, null, `${row.reference}: sent_at`);
        }
        const failingPlanned = new Set(
          sent.filter((entry) => entry.planned.failing).map((entry) => entry.id),
        );
        for (const row of rows) {
          if (failingPlanned.has(row.id)) {
            assert.notEqual(row.status, 'successful', `${row.reference}: to a beneficiary the bank refuses`);
          }
        }

        const entries = await handle!.db
          .selectFrom('account_transactions')
          .select(['transfer_id', 'type', 'kind', 'amount_kobo'])
          .where('transfer_id', 'in', [...ours])
          .execute();
        for (const row of rows) {
          const mine = entries.filter((entry) => entry.transfer_id === row.id);
          if (row.status === 'successful') {
            const byKind = mine
              .map((entry) => `${entry.type} ${entry.kind} ${Number(entry.amount_kobo)}`)
              .sort();
            assert.deepEqual(
              byKind,
              [`debit fee ${Number(row.fee_kobo)}`, `debit transfer ${Number(row.amount_kobo)}`].sort(),
              `${row.reference}: the transfer and its fee, debited once`,
            );
          } else {
            assert.deepEqual(mine, [], `${row.reference} (${row.status}) has no entries`);
          }
        }
        t.diagnostic(
          `still processing at the end (a status query due): ${rows.filter((row) => row.status === 'processing').length}`,
        );
        const failed = rows.filter((row) => row.status === 'failed');
        t.diagnostic(
          `failure reasons, the bank never took it: ${JSON.stringify(tally(failed.filter((row) => !bank!.transfers.has(row.id)).map((row) => row.failure_reason ?? 'null')))}; ` +
            `it refused it: ${JSON.stringify(tally(failed.filter((row) => bank!.transfers.has(row.id)).map((row) => row.failure_reason ?? 'null')))}`,
        );
      });

      it('asks the bank about a transfer no sooner than max(TRANSFER_REQUERY_MS, BANK_CONNECTOR_TIMEOUT_MS + 1 s) after it was sent', async (t) => {
        const rows = await handle!.db
          .selectFrom('transfers')
          .select(['id', 'reference', 'sent_at'])
          .where('partner_id', '=', partnerId)
          .execute();
        const firstQuery = new Map<string, number>();
        for (const request of bank!.requests) {
          const match = /^\/transfers\/([^/?]+)$/.exec(request.path);
          if (request.method !== 'GET' || !match) continue;
          const id = decodeURIComponent(match[1]!);
          if (!firstQuery.has(id)) firstQuery.set(id, request.at);
        }
        const early: string[] = [];
        const gaps: number[] = [];
        for (const row of rows) {
          const at = firstQuery.get(row.id);
          if (at === undefined || row.sent_at === null) continue;
          const gap = at - Number(row.sent_at);
          gaps.push(gap);
          if (gap < FIRST_QUERY_MS) early.push(`${row.reference}: ${gap} ms`);
        }
        gaps.sort((a, b) => a - b);
        t.diagnostic(
          `${gaps.length} transfers were asked about; first query after the send: min ${gaps[0]} ms, median ${gaps[Math.floor(gaps.length / 2)]} ms; ${early.length} sooner than ${FIRST_QUERY_MS} ms`,
        );
        assert.ok(gaps.length > 0, 'some transfers were asked about');
        assert.deepEqual(early.slice(0, 10), [], `${early.length} transfers asked about too soon`);
      });

      it('balances: Σ entries = balances, holds = open transfers, none left on accounts whose transfers are final', async () => {
        const db = handle!.db;
        assert.deepEqual(await ledgerProblems(db), [], 'the ledger adds up');
        const rows = await db
          .selectFrom('transfers')
          .select(['account_id', 'status', 'amount_kobo', 'fee_kobo'])
          .where('partner_id', '=', partnerId)
          .execute();
        const balances = await db
          .selectFrom('virtual_accounts')
          .select(['id', 'balance_kobo', 'held_kobo'])
          .where(
            'id',
            'in',
            accounts.map((account) => account.id),
          )
          .execute();
        for (const account of balances) {
          const own = rows.filter((row) => row.account_id === account.id);
          const spent = own
            .filter((row) => row.status === 'successful')
            .reduce((sum, row) => sum + Number(row.amount_kobo) + Number(row.fee_kobo), 0);
          assert.equal(
            Number(account.balance_kobo),
            FUNDING_NOTIFICATIONS * FUNDING_KOBO - spent,
            `${account.id}: the funding less the successful transfers and their fees`,
          );
          if (own.every((row) => row.status === 'successful' || row.status === 'failed')) {
            assert.equal(Number(account.held_kobo), 0, `${account.id}: no hold left`);
          }
        }
      });

      it('stopped the last server on SIGTERM with exit code 0', () => {
        assert.equal(stopExit, 0);
      });
    });
  }
});
