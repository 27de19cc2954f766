/**
 * OpenAPI-driven fuzzing: every operation of GET /baas/api/v1/openapi.json gets fast-check generated
 * requests (valid, invalid bodies, transport errors, invalid path/query parameters, bad credentials,
 * bad Idempotency-Keys) and every response is checked against the published rules
 * (docs/partner-guide.md, docs/operator-guide.md) and the document: never a 5xx, always the envelope,
 * documented statuses and schemas, invalid input rejected with nothing persisted. FUZZ_RUNS sets the
 * cases per property per operation (default 25); `node scripts/fuzz.mjs` runs 1000. FUZZ_OP /
 * FUZZ_PROPERTY / FUZZ_SEED / FUZZ_PATH replay a failure.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DIALECTS, type DialectCase } from '../../support/app.js';
import { isIdempotentOperation } from './contract.js';
import { operationHints } from './hints.js';
import { KNOWN_ISSUES, SKIPPED_OPERATIONS } from './known-issues.js';
import { HTTP_METHODS, operationsOf } from './openapi.js';
import { checkEnvelope } from './oracle.js';
import { persistedChanges, snapshot } from './persistence.js';
import { writeReport } from './report.js';
import {
  ascii,
  FUZZ_RUNS,
  FUZZ_RUNS_SECONDARY,
  newStats,
  type OpStats,
  propertiesFor,
  runProperty,
} from './runner.js';
import { createFuzzWorld, type FuzzWorld } from './world.js';

const onlyOperations = process.env['FUZZ_OP']?.split(',').filter(Boolean);
const onlyProperties = process.env['FUZZ_PROPERTY']?.split(',').filter(Boolean);
const onlyDialects = process.env['FUZZ_DIALECTS']?.split(',').filter(Boolean);
const filtered = onlyOperations !== undefined || onlyProperties !== undefined;

/** The path templates of the document as regular expressions, to tell route overlaps apart. */
const templatePattern = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

/**
 * The fuzzing of one database's server. Each database has a test file of its own
 * (test/fuzz/openapi-<dialect>.test.ts), so the two run side by side and each stays well inside the
 * test runner's per-file time limit.
 */
export function fuzzOpenApi(name: DialectCase['name']): void {
  const dialect = DIALECTS.find((candidate) => candidate.name === name)!;
  if (onlyDialects && !onlyDialects.includes(dialect.name)) return;
  if (dialect.skip) {
    describe(`OpenAPI fuzz (${dialect.name})`, { skip: dialect.skip }, () => {});
    return;
  }
  describe(`OpenAPI fuzz (${dialect.name}, ${FUZZ_RUNS}/${FUZZ_RUNS_SECONDARY} runs per property)`, async () => {
    const started = Date.now();
    let world: FuzzWorld;
    try {
      world = await createFuzzWorld(dialect.name);
    } catch (error) {
      it('sets up the fuzzing world', () => {
        throw error;
      });
      return;
    }
    let operations: ReturnType<typeof operationsOf>;
    try {
      // Fails on an operation without operationId or with a body media type the fuzzer cannot send.
      operations = operationsOf(world.doc);
    } catch (error) {
      await world.close();
      it('reads every operation of the OpenAPI document', () => {
        throw error;
      });
      return;
    }
    const hints = operationHints(world);
    const stats: OpStats[] = [];
    after(async () => {
      writeReport(dialect.name, stats, Date.now() - started);
      await world.close();
    });

    it('knows every hinted, allow-listed and skipped operation', () => {
      const ids = new Set(operations.map((op) => op.operationId));
      const stale = [
        ...Object.keys(hints),
        ...Object.keys(SKIPPED_OPERATIONS),
        ...KNOWN_ISSUES.map((issue) => issue.operationId).filter((id) => id !== '*'),
      ].filter((id) => !ids.has(id));
      assert.deepEqual(stale, [], 'entries for operations the document no longer has');
      assert.equal(ids.size, operations.length, 'operationIds are unique');
    });

    it('has oracles that see what they must (self-test)', async () => {
      // Persistence: a change behind a "rejected" request is reported.
      const id = world.loginPartner.companyId;
      const before = await snapshot(world, {});
      await world.t.db
        .updateTable('partners')
        .set({ review_notes: 'fuzz self-test' })
        .where('id', '=', id)
        .execute();
      const after = await snapshot(world, {});
      await world.t.db.updateTable('partners').set({ review_notes: null }).where('id', '=', id).execute();
      const changes = await persistedChanges(world, before, after, {}, 422);
      assert.equal(changes.length, 1);
      assert.match(changes[0]!.message, /partners\.rows/);
      assert.deepEqual(await persistedChanges(world, after, after, {}, 422), []);
      // Envelope: a bare body and a wrong status field are reported.
      const fake = (status: number, body: unknown) => ({
        status,
        headers: new Headers({ 'content-type': 'application/json' }),
        text: JSON.stringify(body),
        json: body,
        isJson: true,
        contentType: 'application/json',
      });
      assert.ok(checkEnvelope(fake(404, { error: 'Not Found' })).length > 0);
      assert.ok(checkEnvelope(fake(200, { status: 'error', message: 'x' })).length > 0);
      assert.ok(
        checkEnvelope(fake(422, { status: 'error', message: 'x', error_code: 'VALIDATION_FAILED' })).length >
          0,
      );
      assert.deepEqual(
        checkEnvelope(fake(404, { status: 'error', message: 'x', error_code: 'NOT_FOUND' })),
        [],
      );
    });

    it('documents the Idempotency-Key header on exactly the POST operations under /services/', () => {
      const problems = operations.flatMap((op) => {
        const documented = op.headerParams.some((param) => param.name.toLowerCase() === 'idempotency-key');
        const contract = isIdempotentOperation(op.method, op.path);
        return documented === contract
          ? []
          : [`${op.operationId}: documented ${documented}, contract ${contract}`];
      });
      assert.deepEqual(problems, []);
    });

    for (const op of operations) {
      if (onlyOperations && !onlyOperations.includes(op.operationId)) continue;
      const skipped = SKIPPED_OPERATIONS[op.operationId];
      const opStats = newStats(op.operationId);
      stats.push(opStats);
      describe(`${op.operationId}: ${op.method} ${op.path}`, {
        ...(skipped ? { skip: skipped } : {}),
      }, () => {
        for (const property of propertiesFor(op)) {
          if (onlyProperties && !onlyProperties.includes(property)) continue;
          it(property, async () => {
            await runProperty({ world, op, hints: hints[op.operationId] ?? {}, stats: opStats }, property);
          });
        }
      });
    }

    it('fuzzed every operation of the document (or lists why not)', {
      skip: filtered ? 'FUZZ_OP/FUZZ_PROPERTY set' : false,
    }, () => {
      const missing = operations
        .filter((op) => !SKIPPED_OPERATIONS[op.operationId])
        .filter((op) => {
          const stat = stats.find((entry) => entry.operationId === op.operationId);
          return !stat || Object.values(stat.cases).reduce((a, b) => a + (b ?? 0), 0) === 0;
        })
        .map((op) => `${op.method} ${op.path} (${op.operationId})`);
      assert.deepEqual(missing, [], 'operations that ran no case and have no SKIPPED_OPERATIONS reason');
      for (const warning of stats.flatMap((stat) =>
        [...stat.warnings.keys()].map((id) => `${stat.operationId}: ${id}`),
      )) {
        console.warn(ascii(`fuzz warning (${dialect.name}): allow-listed ${warning}`));
      }
    });

    it('answers 405 METHOD_NOT_ALLOWED (in the envelope) to undocumented methods on documented paths', async () => {
      const problems: string[] = [];
      for (const [path, item] of Object.entries(world.doc.paths)) {
        const documented = HTTP_METHODS.filter((method) => method in item).map((method) =>
          method.toUpperCase(),
        );
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
          if (documented.includes(method)) continue;
          const concrete = path.replace(/\{[^}]+\}/g, '1');
          // GET /virtual-account/create is GET /virtual-account/{account_number}: another route, not a 405.
          const overlaps = Object.entries(world.doc.paths).some(
            ([other, otherItem]) =>
              other !== path && method.toLowerCase() in otherItem && templatePattern(other).test(concrete),
          );
          if (overlaps) continue;
          const response = await fetch(`${world.t.url}${concrete}`, {
            method,
            headers: { authorization: `Bearer ${world.credentials.sessionToken}` },
          });
          const text = await response.text();
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const envelope = checkEnvelope({
            status: response.status,
            headers: response.headers,
            text,
            json,
            isJson: json !== undefined,
            contentType: response.headers.get('content-type') ?? '',
          });
          if (response.status !== 405 || envelope.length > 0) {
            problems.push(
              `${method} ${concrete} → ${response.status} ${text.slice(0, 200)} ${envelope.map((v) => v.message).join('; ')}`,
            );
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
