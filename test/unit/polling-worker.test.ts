import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createPollingWorker } from '../../src/platform/worker/polling-worker.js';

/** The heartbeat /readyz reads (docs/operations.md, "Probes"). */
describe("a polling worker's health", () => {
  const log = pino({ level: 'silent' });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('is stopped before start and after stop, ok while its passes run', async () => {
    const worker = createPollingWorker({
      name: 'test',
      log,
      pollMs: 10,
      maxInFlight: 1,
      claim: async () => ({ jobs: [] }),
    });
    assert.equal(worker.health(1_000), 'stopped');
    worker.start();
    await pause(50);
    assert.equal(worker.health(1_000), 'ok');
    await worker.stop();
    assert.equal(worker.health(1_000), 'stopped');
  });

  it('is stuck once a pass has run longer than the limit', async () => {
    let release: () => void = () => undefined;
    const hung = new Promise<{ jobs: [] }>((resolve) => {
      release = () => resolve({ jobs: [] });
    });
    const worker = createPollingWorker({ name: 'test', log, pollMs: 10, maxInFlight: 1, claim: () => hung });
    worker.start();
    await pause(30);
    assert.equal(worker.health(200), 'ok');
    await pause(250);
    assert.equal(worker.health(200), 'stuck');
    release();
    await pause(30);
    assert.equal(worker.health(200), 'ok');
    await worker.stop();
  });
});
