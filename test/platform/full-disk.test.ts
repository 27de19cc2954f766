import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { assertError, retryAfterSeconds, until } from '../support/assertions.js';
import type { ApiResponse } from '../support/http.js';
import { profileOf } from '../support/onboarding.js';
import { newPartner } from '../support/partners.js';
import { BUSINESS_INFO } from '../support/paths.js';
import { fillDisk, tmpfsProblem, useAppOnTmpfs } from '../support/tmpfs.js';

// SQLite only: its database lives in DATA_DIR, which is put on a small tmpfs. (PostgreSQL's disk is
// not the test's to fill; its disk_full error, 53100, maps to the same answer.)
describe('a full disk under the SQLite database', { skip: tmpfsProblem }, () => {
  const suite = useAppOnTmpfs('sqlite', '', 32 * 1024 * 1024);

  it('answers a write 503 STORAGE_FULL, keeps serving reads, and writes again once space is freed', async () => {
    const partner = await newPartner(suite, 'signed-in');
    const filler = path.join(suite.mount, 'filler');
    fillDisk(filler);

    // The write-ahead log may still have room for a few pages: writes fail once it must grow.
    let refused: ApiResponse | undefined;
    for (let attempt = 0; attempt < 500 && !refused; attempt++) {
      const response = await suite.t.api.put(
        BUSINESS_INFO,
        { address: `${attempt} Marina, Lagos` },
        {
          token: partner.token,
        },
      );
      if (response.status !== 200) refused = response;
    }
    assert.ok(refused, 'a write failed on the full disk');
    assertError(refused, 503, 'STORAGE_FULL');
    retryAfterSeconds(refused);
    assert.equal((await profileOf(suite.t, partner.token)).company_id, partner.companyId);

    // The cause is logged as SQLite's own error, never as the failed rollback that used to hide it,
    // and the episode once, however many writes are refused.
    const second = await suite.t.api.put(BUSINESS_INFO, { address: 'again' }, { token: partner.token });
    assertError(second, 503, 'STORAGE_FULL');
    const lines = () =>
      suite.t.logs.map((line) => JSON.parse(line) as { msg?: string; err?: { code?: string } });
    await until(
      'SQLITE_FULL logged with both requests',
      () =>
        lines().filter((line) => line.msg === 'request failed' && line.err?.code === 'SQLITE_FULL').length >=
        2,
    );
    assert.ok(!suite.t.logs.some((line) => line.includes('cannot rollback')), 'a rollback error was logged');
    assert.equal(lines().filter((line) => line.msg?.startsWith('the disk is full')).length, 1);

    // While writes fail, readiness says why: the instance leaves the load balancer's rotation.
    const notReady = await suite.t.api.get('/readyz');
    assertError(notReady, 503, 'SERVICE_UNAVAILABLE', { data: true });
    assert.equal(notReady.body.data.checks.storage, 'full');
    assert.equal(notReady.body.data.checks.database, 'ok');

    rmSync(filler);
    const updated = await suite.t.api.put(
      BUSINESS_INFO,
      { address: '1 Broad Street, Lagos' },
      {
        token: partner.token,
      },
    );
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.data.address, '1 Broad Street, Lagos');
    const ready = await suite.t.api.get('/readyz');
    assert.equal(ready.status, 200, ready.text);
    assert.equal(ready.body.data.checks.storage, 'ok');
  });
});
