import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminHeaders } from '../support/admin.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, until } from '../support/assertions.js';
import { memberBody } from '../support/factories.js';
import { createAccount, newPartner, type PartnerAt } from '../support/partners.js';
import {
  ADMIN_PARTNERS,
  API_KEYS,
  AUDIT_EVENTS,
  creditUrl,
  DELIVERIES,
  TEAM,
  transactionsUrl,
  VIRTUAL_ACCOUNTS,
  WEBHOOK,
} from '../support/paths.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * docs/partner-guide.md, "Pagination": a cursor the server did not issue for that list (altered,
 * forged, another list's, another partner's or environment's) is 422 on `cursor`, on both databases,
 * and no crafted value reaches SQL (PostgreSQL answered 500 to a NUL byte or an out-of-range number).
 */

interface ListCase {
  name: string;
  url: string;
  /** Headers of the owner of the list. */
  owner: Record<string, string>;
  /** Credentials that must not be able to use the owner's cursor (another partner, environment). */
  strangers: Array<{ label: string; headers: Record<string, string>; url?: string }>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** Cursors of the earlier format (base64 JSON) and variants a client could craft. */
const CRAFTED = [
  b64('{"p":"\u0000"}'),
  b64('{"p":"0190abcd-0000-7000-8000-000000000000\u0000"}'),
  b64('{"p":99999999999999999999999}'),
  b64('{"p":-1}'),
  b64('{"p":"\'; drop table partners; --"}'),
  'e30.AAAAAAAAAAAAAAAAAAAAAA',
  '.',
  'a.b.c',
];

for (const dialect of DIALECTS) {
  describe(`pagination cursors are opaque and authenticated [${dialect.name}]`, {
    skip: dialect.skip,
  }, () => {
    const app = useApp(dialect.name, { env: { WEBHOOK_POLL_MS: '50' } });
    let receiver: WebhookReceiver;
    let a: PartnerAt<'live'>;
    let b: PartnerAt<'live'>;
    let accountNumber: string;
    let cases: ListCase[];

    before(async () => {
      receiver = await new WebhookReceiver().start();
      a = await newPartner(app, 'live');
      b = await newPartner(app, 'live');
      const hook = await app.t.api.put(WEBHOOK, { url: receiver.url }, { token: a.token });
      assert.equal(hook.status, 201, hook.text);
      for (let i = 0; i < 3; i++) {
        accountNumber = (await createAccount(app.t, a.sandboxKey)).account_number;
        const member = await app.t.api.post(TEAM, memberBody(), { token: a.token });
        assert.equal(member.status, 201, member.text);
      }
      for (let i = 0; i < 3; i++) {
        const credit = await app.t.api.post(
          creditUrl(accountNumber),
          { amount: 100 + i },
          { token: a.sandboxKey },
        );
        assert.equal(credit.status, 201, credit.text);
      }
      await until('three delivery attempts', async () => {
        const log = await app.t.api.get(`${DELIVERIES}?limit=100`, { token: a.token });
        return log.body.data.items.length >= 3;
      });
      const partnerLists = (url: string, owner: string): ListCase => ({
        name: url,
        url,
        owner: bearer(owner),
        strangers: [
          { label: 'another partner', headers: bearer(b.token) },
          { label: 'another environment', headers: bearer(a.liveToken) },
        ],
      });
      cases = [
        partnerLists(VIRTUAL_ACCOUNTS, a.sandboxKey),
        {
          ...partnerLists(transactionsUrl(accountNumber), a.token),
          strangers: [{ label: 'another partner', headers: bearer(b.token), url: VIRTUAL_ACCOUNTS }],
        },
        {
          ...partnerLists(TEAM, a.token),
          strangers: [{ label: 'another partner', headers: bearer(b.token) }],
        },
        {
          ...partnerLists(API_KEYS, a.token),
          strangers: [{ label: 'another partner', headers: bearer(b.token) }],
        },
        partnerLists(DELIVERIES, a.token),
        { name: 'admin partners', url: ADMIN_PARTNERS, owner: adminHeaders, strangers: [] },
        { name: 'admin audit', url: AUDIT_EVENTS, owner: adminHeaders, strangers: [] },
      ];
    });
    after(() => receiver?.stop());

    const firstCursor = async (list: ListCase): Promise<string> => {
      const page = await app.t.api.get(`${list.url}?limit=1`, { headers: list.owner });
      assert.equal(page.status, 200, `${list.name}: ${page.text}`);
      const cursor = page.body.data.next_cursor as string | null;
      assert.ok(cursor, `${list.name} has a second page`);
      return cursor;
    };

    it('follows its own cursors to the next page', async () => {
      for (const list of cases) {
        const cursor = await firstCursor(list);
        const next = await app.t.api.get(`${list.url}?limit=1&cursor=${encodeURIComponent(cursor)}`, {
          headers: list.owner,
        });
        assert.equal(next.status, 200, `${list.name}: ${next.text}`);
        assert.equal(next.body.data.items.length, 1, list.name);
      }
    });

    it('refuses crafted, altered and truncated cursors with 422 on `cursor`', async () => {
      for (const list of cases) {
        const cursor = await firstCursor(list);
        const [payload, tag] = cursor.split('.') as [string, string];
        const altered = [
          `${b64('"0190abcd-0000-7000-8000-000000000000"')}.${tag}`,
          `${payload}.${tag.slice(0, -2)}${tag.endsWith('AA') ? 'BB' : 'AA'}`,
          payload,
          `${payload}.`,
        ];
        for (const bad of [...CRAFTED, ...altered]) {
          const response = await app.t.api.get(`${list.url}?cursor=${encodeURIComponent(bad)}`, {
            headers: list.owner,
          });
          assertError(response, 422, 'VALIDATION_FAILED', {
            what: `${list.name} with ${JSON.stringify(bad)}`,
          });
          assert.ok(response.body.errors?.['cursor'], response.text);
        }
      }
    });

    it("refuses another list's, another partner's and another environment's cursor", async () => {
      const cursors = new Map<string, string>();
      for (const list of cases) cursors.set(list.name, await firstCursor(list));
      for (const list of cases) {
        for (const other of cases) {
          if (other === list || (other.owner === adminHeaders) !== (list.owner === adminHeaders)) continue;
          const response = await app.t.api.get(
            `${list.url}?cursor=${encodeURIComponent(cursors.get(other.name)!)}`,
            { headers: list.owner },
          );
          assertError(response, 422, 'VALIDATION_FAILED', { what: `${other.name}'s cursor on ${list.name}` });
        }
        for (const stranger of list.strangers) {
          const response = await app.t.api.get(
            `${stranger.url ?? list.url}?cursor=${encodeURIComponent(cursors.get(list.name)!)}`,
            { headers: stranger.headers },
          );
          assertError(response, 422, 'VALIDATION_FAILED', {
            what: `${list.name}'s cursor used by ${stranger.label}`,
          });
        }
      }
    });
  });
}
