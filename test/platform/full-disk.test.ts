import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { assertError, retryAfterSeconds } from '../support/assertions.js';
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
  });
});
