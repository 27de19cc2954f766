import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError } from '../support/assertions.js';
import { newPartner } from '../support/partners.js';
import { AUDIT_EVENTS, adminPartnerUrl } from '../support/paths.js';

/**
 * Integer path and query values are plain decimal digits. ajv's coercion alone would read `0x2`,
 * `2e0`, `2.0`, ` 2` and `+2` as 2, so one resource answered to many spellings of its id.
 */

/** Spellings that JavaScript's Number() (and so ajv's coercion) reads as `id`. */
const aliases = (id: number): string[] => [
  `0${id}`,
  `00${id}`,
  `0x${id.toString(16)}`,
  `0o${id.toString(8)}`,
  `0b${id.toString(2)}`,
  `${id}e0`,
  `${id}.0`,
  `${id}.`,
  `%20${id}`,
  `${id}%20`,
  `%09${id}`,
  `+${id}`,
  `${id * 10}e-1`,
];

for (const dialect of DIALECTS) {
  describe(`integer path and query values are plain digits [${dialect.name}]`, { skip: dialect.skip }, () => {
    const context = useApp(dialect.name);
    let companyId: number;

    before(async () => {
      companyId = (await newPartner(context, 'registered')).companyId;
    });

    it('finds a partner by its plain id and answers 404 NOT_FOUND to every other spelling of it', async () => {
      const found = await context.t.api.get(adminPartnerUrl(companyId), { headers: adminHeaders });
      assert.equal(found.status, 200, found.text);
      assert.equal(found.body.data.company_id, companyId);
      for (const alias of aliases(companyId)) {
        const response = await context.t.api.get(adminPartnerUrl(alias), {
          headers: adminHeaders,
        });
        assertError(response, 404, 'NOT_FOUND', { what: `/admin/partners/${alias}` });
      }
    });

    it('answers 422 VALIDATION_FAILED naming the field to a query integer in another notation', async () => {
      const audit = AUDIT_EVENTS;
      for (const [query, field] of [
        ...aliases(companyId).map((alias) => [`company_id=${alias}`, 'company_id'] as const),
        ['limit=1e1', 'limit'],
        ['limit=0x10', 'limit'],
        ['limit=10.0', 'limit'],
        ['limit=%2010', 'limit'],
        ['limit=+10', 'limit'],
        ['limit=010', 'limit'],
      ] as const) {
        const response = await context.t.api.get(`${audit}?${query}`, { headers: adminHeaders });
        assertError(response, 422, 'VALIDATION_FAILED', { what: `?${query}` });
        assert.ok(response.body.errors?.[field]?.length, `?${query} names ${field}: ${response.text}`);
      }
      const plain = await context.t.api.get(`${audit}?company_id=${companyId}&limit=10`, {
        headers: adminHeaders,
      });
      assert.equal(plain.status, 200, plain.text);
      const blank = await context.t.api.get(`${audit}?limit=`, { headers: adminHeaders });
      assert.equal(blank.status, 200, `a blank value is absent, as for any field: ${blank.text}`);
      const own = plain.body.data.items as Array<{ company_id: number | null }>;
      assert.ok(own.length > 0 && own.every((event) => event.company_id === companyId), plain.text);
    });
  });
}
