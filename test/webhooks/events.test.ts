import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { approvePartner } from '../support/admin.js';
import type { TestApp } from '../support/app.js';
import { DIALECTS, useApp } from '../support/app.js';
import { assertError, ISO_MILLIS, retryAfterSeconds, UUID, until } from '../support/assertions.js';
import { nextMillisecond, pinClock } from '../support/clock.js';
import { allPages, listAll } from '../support/http.js';
import { completeOnboarding, submit } from '../support/onboarding.js';
import { createAccount, createApiKey, newPartner } from '../support/partners.js';
import {
  creditUrl,
  DELIVERIES,
  EVENTS,
  eventUrl,
  lifecycleUrl,
  OPENAPI,
  redeliverUrl,
  retryUrl,
  TRANSFERS,
  transferUrl,
  VIRTUAL_ACCOUNTS,
  WEBHOOK_TEST,
} from '../support/paths.js';
import { auditActions, outboxEvents } from '../support/records.js';
import type { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver.js';
import {
  allDeliveries,
  FAST_WEBHOOKS,
  setEndpoint,
  settled,
  startReceiver,
  subscribedPartner,
  verifiedPayload,
} from '../support/webhooks.js';

/** The event types of docs/partner-guide.md, "Webhooks" (written out, not read from the code). */
const GUIDE_EVENT_TYPES = [
  'document.reviewed',
  'onboarding.status_changed',
  'transfer.failed',
  'transfer.reversed',
  'transfer.successful',
  'virtual_account.created',
  'virtual_account.credited',
  'virtual_account.status_changed',
  'webhook.test',
];
const EVENT_FIELDS = ['created_at', 'data', 'delivery', 'environment', 'id', 'type'];
const DELIVERY_FIELDS = ['attempts', 'delivered_at', 'next_attempt_at', 'status'];
/** The webhook-id form of event ids (Standard Webhooks style, as OpenAPI's EventParams documents). */
const EVENT_ID = /^msg_[0-9a-f]{32}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

// biome-ignore lint/suspicious/noExplicitAny: events and payloads as the API returns them.
type Item = Record<string, any>;

const ids = (items: Item[]): string[] => items.map((item) => item.id as string);
const query = (params: Record<string, string | number>): string =>
  new URLSearchParams(
    Object.entries(params).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();

/** One page of the events list; fails unless it is a 200 page. */
async function eventsPage(
  t: Pick<TestApp, 'api'>,
  token: string,
  params: Record<string, string | number> = {},
) {
  const response = await t.api.get(`${EVENTS}?${query(params)}`, { token });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.body.status, 'success');
  return response.body.data as { items: Item[]; next_cursor: string | null };
}

/** Every event of a (filtered) list, following next_cursor. */
function allEvents(t: Pick<TestApp, 'api'>, token: string, params: Record<string, string | number> = {}) {
  const filter = query(params);
  return listAll(t, filter ? `${EVENTS}?${filter}` : EVENTS, token) as Promise<Item[]>;
}

const deliveriesOf = (receiver: WebhookReceiver, id: string): ReceivedWebhook[] =>
  receiver.received.filter((delivery) => delivery.id === id);

/** An event id in the right form that nobody was given. */
const unknownEventId = (): string => `msg_${randomBytes(16).toString('hex')}`;

/** `iso` written with a +01:00 offset: the same instant, another spelling. */
function withOffset(iso: string): string {
  const shifted = new Date(Date.parse(iso) + 60 * 60 * 1000).toISOString();
  return `${shifted.slice(0, 23)}+01:00`;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Altered spellings of an issued cursor `<position>.<mac>` (docs/decisions.md, "Pagination cursors";
 * both parts base64url): another position under the same MAC, and the same MAC spelled otherwise (its
 * last character's spare bits flipped, a stray character, padding) which a lenient base64 decoder
 * would read as the same bytes.
 */
function alteredCursors(cursor: string, otherPosition: string): Array<[string, string]> {
  const [position, mac] = cursor.split('.');
  assert.ok(position && mac, `a cursor of two parts: ${cursor}`);
  const last = BASE64URL.indexOf(mac.at(-1)!);
  assert.ok(last >= 0, `a base64url MAC: ${mac}`);
  return [
    [
      'another position, the same MAC',
      `${Buffer.from(JSON.stringify(otherPosition)).toString('base64url')}.${mac}`,
    ],
    ["the MAC's last character's spare bit flipped", `${position}.${mac.slice(0, -1)}${BASE64URL[last ^ 1]}`],
    ['a stray character in the MAC', `${position}.${mac.slice(0, 5)}!${mac.slice(5)}`],
    ['a padded MAC', `${position}.${mac}==`],
    ['a character of the MAC changed', `${position}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`],
    ['a third part', `${cursor}.x`],
  ];
}

const isoDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------
// The OpenAPI document's webhook schemas, compiled with ajv (JSON Schema 2020-12, as OpenAPI 3.1).

/** A deep copy with every `#/components/schemas/X` reference replaced by that component (no cycles here). */
function inlined(document: Item, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlined(document, item));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as Record<string, unknown>)['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const component = document['components']?.['schemas']?.[ref.slice('#/components/schemas/'.length)];
    assert.ok(component, `${ref} resolves`);
    return inlined(document, component);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(document, value)]));
}

/** A deep copy in which every object schema with listed properties allows no others. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      ['const', 'enum', 'examples', 'default'].includes(key) ? value : closed(value),
    ]),
  );
  if (copy['type'] === 'object' && copy['properties'] && !('additionalProperties' in copy)) {
    copy['additionalProperties'] = false;
  }
  return copy;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface WebhookValidators {
  /** The documented schema of the delivered body `{type, timestamp, data}`. */
  documented: ValidateFunction;
  /** The same, refusing properties it does not list (a payload carries only documented fields). */
  strict: ValidateFunction;
}

/** Validators for each event type of the document's `webhooks` section, its components inlined. */
function webhookValidators(document: Item): Map<string, WebhookValidators> {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)),
  });
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
  const validators = new Map<string, WebhookValidators>();
  for (const [type, pathItem] of Object.entries(document['webhooks'] as Item)) {
    const schema = inlined(document, pathItem.post?.requestBody?.content?.['application/json']?.schema);
    assert.ok(schema && typeof schema === 'object', `webhooks.${type} documents a JSON request body`);
    validators.set(type, {
      documented: ajv.compile(schema as object),
      strict: ajv.compile(closed(schema) as object),
    });
  }
  return validators;
}

function assertValid(validate: ValidateFunction, payload: unknown, what: string): void {
  const valid = validate(payload);
  assert.ok(valid, `${what}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(payload)}`);
}

// The dialects' suites are independent (a database each), so they run side by side.
describe('events API', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    describe(`events API [${dialect.name}]`, { skip: dialect.skip, concurrency: true }, () => {
      // A fast transfer worker too: the sandbox bank's outcomes (and its late reversal) come in a second.
      const ctx = useApp(dialect.name, {
        env: { ...FAST_WEBHOOKS, TRANSFER_REQUERY_MS: '200', TRANSFER_POLL_MS: '50' },
      });

      it('lists every webhook-worthy change as an event, newest first, with data exactly as delivered and its id as the webhook-id', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        const account = await createAccount(t, partner.sandboxKey);
        await nextMillisecond();
        const credit = await t.api.post(
          creditUrl(account.account_number),
          { amount: 2500.25, narration: 'Invoice 42' },
          { token: partner.sandboxKey },
        );
        assert.equal(credit.status, 201, credit.text);
        await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
        await settled(t, partner.companyId);

        const page = await eventsPage(t, partner.sandboxKey);
        assert.equal(page.next_cursor, null);
        const items = page.items;
        assert.deepEqual(
          items.map((item) => item.type),
          ['virtual_account.credited', 'virtual_account.created'],
          'newest first',
        );
        assert.ok(items[0]!.id > items[1]!.id, 'ids descend');
        assert.ok(Date.parse(items[0]!.created_at) > Date.parse(items[1]!.created_at), 'newest first');
        const stored = await outboxEvents(t, partner.companyId);
        assert.deepEqual(ids(items).sort(), ids(stored).sort(), 'every stored event is listed');

        for (const item of items) {
          assert.deepEqual(Object.keys(item).sort(), EVENT_FIELDS);
          assert.deepEqual(Object.keys(item.delivery).sort(), DELIVERY_FIELDS);
          assert.match(item.id, EVENT_ID);
          assert.equal(item.environment, 'sandbox');
          assert.match(item.created_at, ISO_MILLIS);
          assert.equal(item.delivery.status, 'delivered');
          assert.equal(item.delivery.attempts, 1);
          assert.match(item.delivery.delivered_at, ISO_MILLIS);
          assert.ok(Date.parse(item.delivery.delivered_at) >= Date.parse(item.created_at));

          const delivered = deliveriesOf(receiver, item.id);
          assert.equal(delivered.length, 1, `one delivery with webhook-id ${item.id}`);
          const payload = verifiedPayload(delivered[0]!);
          assert.equal(payload.type, item.type);
          assert.equal(payload.timestamp, item.created_at, 'the payload timestamp is the event creation');
          assert.deepEqual(item.data, payload.data, 'data is exactly what was delivered');
          assert.deepEqual(item.data, JSON.parse(delivered[0]!.body).data, 'and what the raw body held');

          const one = await t.api.get(eventUrl(item.id), { token: partner.token });
          assert.equal(one.status, 200, one.text);
          assert.deepEqual(one.body.data, item, 'GET /events/{id} answers the listed event');
        }
        assert.deepEqual(items[1]!.data, account, 'created: the account as the API returned it');
        assert.deepEqual(items[0]!.data, credit.body.data, 'credited: the credit as the API returned it');

        const viaSession = await eventsPage(t, partner.token);
        assert.deepEqual(viaSession.items, items, 'the session sees the list the API key sees');
      });

      it('filters by type and pages only the filtered list with limit and next_cursor', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'sandbox');
        const key = partner.sandboxKey;
        for (let i = 0; i < 5; i++) {
          const account = await createAccount(t, key);
          if (i % 2 === 0) {
            const credit = await t.api.post(
              creditUrl(account.account_number),
              { amount: 100 + i },
              { token: key },
            );
            assert.equal(credit.status, 201, credit.text);
          }
        }
        const everything = await allEvents(t, key);
        assert.equal(everything.length, 8);

        for (const [type, expectedPages] of [
          ['virtual_account.created', [2, 2, 1]],
          ['virtual_account.credited', [2, 1]],
        ] as const) {
          const pages = await allPages<Item>(t, `${EVENTS}?${query({ type })}`, key, 2);
          assert.deepEqual(
            pages.map((page) => page.length),
            expectedPages,
            `${type}: pages of at most 2`,
          );
          assert.deepEqual(
            ids(pages.flat()),
            ids(everything.filter((item) => item.type === type)),
            `${type}: exactly the events of that type, newest first, each once`,
          );
        }
        const none = await eventsPage(t, key, { type: 'document.reviewed' });
        assert.deepEqual(none, { items: [], next_cursor: null });

        const unfiltered = await allPages<Item>(t, EVENTS, key, 3);
        assert.deepEqual(
          unfiltered.map((page) => page.length),
          [3, 3, 2],
        );
        assert.deepEqual(ids(unfiltered.flat()), ids(everything));

        // A cursor pages the list it was issued for, and only that one.
        const first = await eventsPage(t, key, { type: 'virtual_account.created', limit: 2 });
        assert.ok(first.next_cursor);
        const second = await eventsPage(t, key, {
          type: 'virtual_account.created',
          limit: 2,
          cursor: first.next_cursor,
        });
        assert.deepEqual(
          ids(second.items),
          ids(everything.filter((item) => item.type === 'virtual_account.created')).slice(2, 4),
        );
        const refusals: Array<[string, Record<string, string | number>]> = [
          ['another type', { type: 'virtual_account.credited', cursor: first.next_cursor }],
          ['no type', { cursor: first.next_cursor }],
          [
            'a date filter added',
            { type: 'virtual_account.created', created_from: '2000-01-01', cursor: first.next_cursor },
          ],
          ['a forged cursor', { type: 'virtual_account.created', cursor: `${everything[1]!.id}.forged` }],
          ...alteredCursors(first.next_cursor, everything[0]!.id).map(
            ([what, cursor]): [string, Record<string, string>] => [
              what,
              { type: 'virtual_account.created', limit: '2', cursor },
            ],
          ),
        ];
        for (const [what, params] of refusals) {
          assertError(
            await t.api.get(`${EVENTS}?${query(params)}`, { token: key }),
            422,
            'VALIDATION_FAILED',
            {
              fields: ['cursor'],
              what,
            },
          );
        }
      });

      it('filters by created_from and created_to, both inclusive to the millisecond and in any zone', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'sandbox');
        const key = partner.sandboxKey;
        for (let i = 0; i < 4; i++) {
          await nextMillisecond();
          await createAccount(t, key);
        }
        const [e3, e2, e1, e0] = await allEvents(t, key);
        assert.ok(e0 && e1 && e2 && e3);
        const at = (item: Item) => Date.parse(item.created_at);
        assert.ok(at(e0) < at(e1) && at(e1) < at(e2) && at(e2) < at(e3), 'distinct creation instants');
        const iso = (ms: number) => new Date(ms).toISOString();

        const cases: Array<[string, Record<string, string>, Item[]]> = [
          ['both bounds on events', { created_from: e1.created_at, created_to: e2.created_at }, [e2, e1]],
          ['from a millisecond later', { created_from: iso(at(e1) + 1), created_to: e2.created_at }, [e2]],
          ['to a millisecond earlier', { created_from: e1.created_at, created_to: iso(at(e2) - 1) }, [e1]],
          ['from only', { created_from: e2.created_at }, [e3, e2]],
          ['to only', { created_to: e1.created_at }, [e1, e0]],
          ['one instant', { created_from: e3.created_at, created_to: e3.created_at }, [e3]],
          [
            'another zone',
            { created_from: withOffset(e1.created_at), created_to: withOffset(e2.created_at) },
            [e2, e1],
          ],
          ['a range with nothing in it', { created_from: iso(at(e3) + 1) }, []],
        ];
        for (const [what, params, expected] of cases) {
          assert.deepEqual(ids((await eventsPage(t, key, params)).items), ids(expected), what);
        }

        // Combined with type and the cursor: the cursor pages the same filtered list.
        const filter = {
          type: 'virtual_account.created',
          created_from: e1.created_at,
          created_to: e3.created_at,
        };
        const pages = await allPages<Item>(t, `${EVENTS}?${query(filter)}`, key, 1);
        assert.deepEqual(ids(pages.flat()), ids([e3, e2, e1]));
        const page = await eventsPage(t, key, { ...filter, limit: 1 });
        assert.ok(page.next_cursor);
        assertError(
          await t.api.get(
            `${EVENTS}?${query({ ...filter, created_from: e0.created_at, cursor: page.next_cursor })}`,
            { token: key },
          ),
          422,
          'VALIDATION_FAILED',
          { fields: ['cursor'], what: 'a cursor of another date range' },
        );
        // The same instant spelled in another zone is the same filter, so its cursor goes on.
        const sameRange = await eventsPage(t, key, {
          ...filter,
          created_from: withOffset(e1.created_at),
          limit: 1,
          cursor: page.next_cursor,
        });
        assert.deepEqual(ids(sameRange.items), ids([e2]));
      });

      it('refuses a bad type, limit, cursor, date or a range that ends before it starts with 422 naming the field', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'sandbox');
        const cases: Array<[Record<string, string>, string]> = [
          [{ type: 'virtual_account.deleted' }, 'type'],
          [{ type: 'VIRTUAL_ACCOUNT.CREATED' }, 'type'],

          [{ limit: '0' }, 'limit'],
          [{ limit: '101' }, 'limit'],
          [{ limit: 'ten' }, 'limit'],
          [{ cursor: 'not-a-cursor' }, 'cursor'],
          [{ created_from: 'yesterday' }, 'created_from'],
          [{ created_from: '2026-02-30' }, 'created_from'],
          [{ created_from: '2026-01-01T10:00:00' }, 'created_from'],
          [{ created_to: '2026-13-01' }, 'created_to'],
          [{ created_to: '2026-04-31T00:00:00Z' }, 'created_to'],
          [{ created_from: '2026-03-02', created_to: '2026-03-01' }, 'created_to'],
          [
            { created_from: '2026-03-01T10:00:00.001Z', created_to: '2026-03-01T10:00:00.000Z' },
            'created_to',
          ],
          [{ created_from: '2026-03-01T12:00:00+01:00', created_to: '2026-03-01T10:59:59Z' }, 'created_to'],
        ];
        for (const [params, field] of cases) {
          assertError(
            await t.api.get(`${EVENTS}?${query(params)}`, { token: partner.sandboxKey }),
            422,
            'VALIDATION_FAILED',
            { fields: [field], what: query(params) },
          );
        }
        // The edges that are allowed: one whole day, one instant, the same instant in two zones.
        const allowed: Array<Record<string, string>> = [
          { created_from: '2026-03-01', created_to: '2026-03-01' },
          { created_from: '2026-03-01T10:00:00Z', created_to: '2026-03-01T10:00:00Z' },
          { created_from: '2026-03-01T11:00:00+01:00', created_to: '2026-03-01T10:00:00Z' },
          { limit: '1' },
          { limit: '100' },
        ];
        for (const params of allowed) {
          assert.deepEqual(await eventsPage(t, partner.sandboxKey, params), { items: [], next_cursor: null });
        }
      });

      it("refuses a cursor of another partner's events, the account list or the delivery log with 422 on cursor", async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        const other = await newPartner({ t, sink }, 'signed-in');
        for (let i = 0; i < 2; i++) {
          await createAccount(t, partner.token);
          await createAccount(t, other.token);
        }
        await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
        await settled(t, partner.companyId);

        const mine = await eventsPage(t, partner.token, { limit: 1 });
        const theirs = await eventsPage(t, other.token, { limit: 1 });
        const accounts = await t.api.get(`${VIRTUAL_ACCOUNTS}?limit=1`, { token: partner.token });
        const deliveries = await t.api.get(`${DELIVERIES}?limit=1`, { token: partner.token });
        assert.equal(accounts.status, 200, accounts.text);
        assert.equal(deliveries.status, 200, deliveries.text);
        const cursors = {
          "another partner's events list": theirs.next_cursor,
          "the partner's own account list": accounts.body.data.next_cursor as string | null,
          "the partner's own delivery log": deliveries.body.data.next_cursor as string | null,
        };
        for (const [what, cursor] of Object.entries(cursors)) {
          assert.ok(cursor, `${what} has a next page`);
          assertError(
            await t.api.get(`${EVENTS}?${query({ limit: 1, cursor })}`, { token: partner.token }),
            422,
            'VALIDATION_FAILED',
            { fields: ['cursor'], what },
          );
        }
        // Nor does an events cursor page the delivery log.
        assert.ok(mine.next_cursor);
        assertError(
          await t.api.get(`${DELIVERIES}?${query({ limit: 1, cursor: mine.next_cursor })}`, {
            token: partner.token,
          }),
          422,
          'VALIDATION_FAILED',
          { fields: ['cursor'], what: 'an events cursor on the delivery log' },
        );
        // The cursor is the partner's, whichever of its credentials (same environment) asked.
        const key = await createApiKey(t, partner.token, 'sandbox');
        const next = await eventsPage(t, key.key, { limit: 1, cursor: mine.next_cursor });
        const all = await allEvents(t, partner.token);
        assert.deepEqual(ids(next.items), ids(all).slice(1, 2));
      });

      it("answers GET /services/events/{id} for the partner's own event and 404 for an unknown, another partner's or malformed id", async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'sandbox');
        const other = await newPartner({ t, sink }, 'sandbox');
        const account = await createAccount(t, partner.sandboxKey);
        await createAccount(t, other.sandboxKey);
        const [event] = await allEvents(t, partner.sandboxKey);
        const [theirs] = await allEvents(t, other.sandboxKey);
        assert.ok(event && theirs);

        for (const token of [partner.sandboxKey, partner.token]) {
          const own = await t.api.get(eventUrl(event.id), { token });
          assert.equal(own.status, 200, own.text);
          assert.equal(own.body.data.id, event.id);
          assert.equal(own.body.data.type, 'virtual_account.created');
          assert.deepEqual(own.body.data.data, account);
        }

        const notFound: Array<[string, string]> = [
          ['an unknown id', unknownEventId()],
          ["another partner's event", theirs.id],
          ['a UUID', '0193a1b2-c3d4-7e5f-8071-8293a4b5c6d7'],
          ['the id in upper case', `msg_${event.id.slice(4).toUpperCase()}`],
          ['the id with a character more', `${event.id}0`],
          ['the id without its prefix', event.id.slice(4)],
          ['words', 'not-an-event'],
          ['300 characters', `msg_${'a'.repeat(296)}`],
          ['an injection attempt', "msg_' OR '1'='1"],
        ];
        for (const [what, id] of notFound) {
          for (const token of [partner.sandboxKey, partner.token]) {
            assertError(await t.api.get(eventUrl(encodeURIComponent(id)), { token }), 404, 'NOT_FOUND', {
              what,
            });
          }
        }
        // The other partner still sees its own event: the 404 was about who asked.
        const own = await t.api.get(eventUrl(theirs.id), { token: other.sandboxKey });
        assert.equal(own.status, 200, own.text);
      });

      it('keeps sandbox and live events apart, for sessions and API keys alike', async () => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'live');
        const sandboxAccount = await createAccount(t, partner.sandboxKey);
        const liveAccount = await createAccount(t, partner.liveKey);
        // No endpoint: every event settles as skipped, so the lists below do not change between reads.
        await settled(t, partner.companyId);

        const stored = {
          sandbox: ids(await outboxEvents(t, partner.companyId, 'sandbox')).sort(),
          live: ids(await outboxEvents(t, partner.companyId, 'live')).sort(),
        };
        const accountNumbers = { sandbox: sandboxAccount.account_number, live: liveAccount.account_number };
        const seen: Record<string, Item[]> = {};
        for (const credential of partner.credentials) {
          const items = await allEvents(t, credential.token);
          seen[credential.label] = items;
          const other = credential.environment === 'sandbox' ? 'live' : 'sandbox';
          assert.ok(
            items.every((item) => item.environment === credential.environment),
            `${credential.label}: only ${credential.environment} events`,
          );
          assert.deepEqual(
            ids(items).sort(),
            stored[credential.environment],
            `${credential.label}: all of them`,
          );
          const created = items.filter((item) => item.type === 'virtual_account.created');
          assert.deepEqual(
            created.map((item) => item.data.account_number),
            [accountNumbers[credential.environment]],
            `${credential.label}: its own environment's account only`,
          );
          // Onboarding events go to both environments, each as an event of its own.
          assert.deepEqual(
            items
              .filter((item) => item.type === 'onboarding.status_changed')
              .map((item) => item.data.onboarding_status),
            ['active', 'under_review'],
          );
          assert.equal(items.filter((item) => item.type === 'document.reviewed').length, 3);

          for (const id of [stored[other][0]!, stored[other].at(-1)!]) {
            assertError(await t.api.get(eventUrl(id), { token: credential.token }), 404, 'NOT_FOUND', {
              what: `${credential.label} reading a ${other} event`,
            });
            assertError(
              await t.api.post(redeliverUrl(id), undefined, { token: credential.token }),
              404,
              'NOT_FOUND',
              {
                what: `${credential.label} redelivering a ${other} event`,
              },
            );
          }
        }
        assert.equal(
          stored.sandbox.filter((id) => stored.live.includes(id)).length,
          0,
          'no event is in both environments',
        );
        assert.deepEqual(seen['sandbox session'], seen['sandbox API key']);
        assert.deepEqual(seen['live session'], seen['live API key']);

        // A cursor of one environment's list does not page the other's.
        const sandboxPage = await eventsPage(t, partner.sandboxKey, { limit: 1 });
        assert.ok(sandboxPage.next_cursor);
        assertError(
          await t.api.get(`${EVENTS}?${query({ limit: 1, cursor: sandboxPage.next_cursor })}`, {
            token: partner.liveKey,
          }),
          422,
          'VALIDATION_FAILED',
          { fields: ['cursor'], what: 'a sandbox cursor on the live list' },
        );
        const sandboxNext = await eventsPage(t, partner.token, { limit: 1, cursor: sandboxPage.next_cursor });
        assert.deepEqual(ids(sandboxNext.items), ids(seen['sandbox API key']!).slice(1, 2));
      });

      it('answers 409 WEBHOOK_ENDPOINT_REQUIRED to a redelivery without an endpoint, and delivers a skipped event once one is set', async (test) => {
        const { t, sink } = ctx;
        const partner = await newPartner({ t, sink }, 'sandbox');
        const account = await createAccount(t, partner.sandboxKey);
        await settled(t, partner.companyId);
        const [event] = await allEvents(t, partner.sandboxKey);
        assert.ok(event);
        assert.deepEqual(event.delivery, {
          status: 'skipped',
          attempts: 0,
          delivered_at: null,
          next_attempt_at: null,
        });

        assertError(
          await t.api.post(redeliverUrl(event.id), undefined, { token: partner.sandboxKey }),
          409,
          'WEBHOOK_ENDPOINT_REQUIRED',
        );
        assertError(
          await t.api.post(redeliverUrl(unknownEventId()), undefined, { token: partner.sandboxKey }),
          404,
          'NOT_FOUND',
          {
            what: 'an unknown event',
          },
        );
        assert.equal((await auditActions(t, partner.companyId, 'webhook.event_redelivered')).length, 0);
        const unchanged = await t.api.get(eventUrl(event.id), { token: partner.sandboxKey });
        assert.deepEqual(unchanged.body.data.delivery, {
          status: 'skipped',
          attempts: 0,
          delivered_at: null,
          next_attempt_at: null,
        });

        const receiver = await startReceiver(test);
        await setEndpoint(t.api, partner.token, receiver);
        const redelivered = await t.api.post(redeliverUrl(event.id), undefined, {
          token: partner.sandboxKey,
        });
        assert.equal(redelivered.status, 202, redelivered.text);
        assert.equal(redelivered.body.status, 'success');
        assert.equal(redelivered.body.data.id, event.id);
        assert.equal(redelivered.body.data.delivery.status, 'pending');
        await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
        const delivery = receiver.received[0]!;
        assert.equal(delivery.id, event.id);
        const payload = verifiedPayload(delivery);
        assert.deepEqual(payload, {
          type: 'virtual_account.created',
          timestamp: event.created_at,
          data: account,
        });
        await settled(t, partner.companyId);
        const after = await t.api.get(eventUrl(event.id), { token: partner.sandboxKey });
        assert.equal(after.body.data.delivery.status, 'delivered');
        assert.equal(after.body.data.delivery.attempts, 1);
        assert.equal(receiver.received.length, 1);
      });

      it('replays a redelivery sent again with the same Idempotency-Key instead of queuing another', async (test) => {
        const { t, sink } = ctx;
        const receiver = await startReceiver(test);
        const partner = await newPartner({ t, sink }, 'sandbox');
        await setEndpoint(t.api, partner.token, receiver);
        await createAccount(t, partner.sandboxKey);
        await createAccount(t, partner.sandboxKey);
        await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
        await settled(t, partner.companyId);
        const [newer, older] = await allEvents(t, partner.sandboxKey);
        assert.ok(newer && older);

        const headers = { 'idempotency-key': `redeliver-${older.id}` };
        const first = await t.api.post(redeliverUrl(older.id), undefined, {
          token: partner.sandboxKey,
          headers,
        });
        assert.equal(first.status, 202, first.text);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        await receiver.waitFor(() => deliveriesOf(receiver, older.id).length >= 2, 10_000);
        await settled(t, partner.companyId);

        const again = await t.api.post(redeliverUrl(older.id), undefined, {
          token: partner.sandboxKey,
          headers,
        });
        assert.equal(again.status, 202, again.text);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(again.body, first.body, 'the first answer, replayed');
        const audited = await auditActions(t, partner.companyId, 'webhook.event_redelivered');
        assert.equal(audited.length, 1, 'the replay queued nothing');
        const now = await t.api.get(eventUrl(older.id), { token: partner.sandboxKey });
        assert.equal(now.body.data.delivery.status, 'delivered');
        assert.equal(now.body.data.delivery.attempts, 2);

        // The key names one request: another event under it is refused.
        assertError(
          await t.api.post(redeliverUrl(newer.id), undefined, { token: partner.sandboxKey, headers }),
          422,
          'IDEMPOTENCY_KEY_REUSED',
        );
        assert.equal(deliveriesOf(receiver, older.id).length, 2);
        assert.equal(deliveriesOf(receiver, newer.id).length, 1);
      });

      it('documents one webhook per event type: those the partner guide lists', async () => {
        const { t } = ctx;
        const response = await t.api.get(OPENAPI);
        assert.equal(response.status, 200, response.text);
        const document = response.body as unknown as Item;
        assert.match(String(document['openapi']), /^3\.1\./);
        const webhooks = document['webhooks'] as Item;
        assert.ok(webhooks && typeof webhooks === 'object', 'the document has a webhooks section');
        assert.deepEqual(Object.keys(webhooks).sort(), GUIDE_EVENT_TYPES);
        for (const [type, pathItem] of Object.entries(webhooks)) {
          assert.deepEqual(Object.keys(pathItem), ['post'], `${type}: one POST`);
          const schema = inlined(
            document,
            pathItem.post.requestBody.content['application/json'].schema,
          ) as Item;
          assert.deepEqual(
            [...schema.required].sort(),
            ['data', 'timestamp', 'type'],
            `${type}: {type, timestamp, data}`,
          );
          assert.deepEqual(schema.properties.type.enum, [type], `${type}: its body names its type`);
          assert.equal(schema.properties.data.type, 'object', `${type}: data is an object schema`);
        }
        // Compiles: every schema, with its references, is valid JSON Schema 2020-12.
        assert.equal(webhookValidators(document).size, GUIDE_EVENT_TYPES.length);
      });

      it('delivers payloads of every event type that validate against their schema in the OpenAPI webhooks section', async (test) => {
        const { t, sink } = ctx;
        const { partner, receiver } = await subscribedPartner(test, { t, sink });
        await completeOnboarding(t, partner.token);
        const submitted = await submit(t, partner.token);
        assert.equal(submitted.status, 200, submitted.text);
        await approvePartner(t, partner.companyId);
        const account = await createAccount(t, partner.token);
        const credit = await t.api.post(
          creditUrl(account.account_number),
          { amount: '1500.50', narration: 'Schema check' },
          { token: partner.token },
        );
        assert.equal(credit.status, 201, credit.text);
        // Transfers to the sandbox bank: one it fails (ending 05), one it reverses after success (21).
        for (const [ending, final] of [
          ['05', 'failed'],
          ['21', 'reversed'],
        ] as const) {
          const sent = await t.api.post(
            TRANSFERS,
            {
              source_account_number: account.account_number,
              amount: '100.00',
              bank_code: '000013',
              account_number: `01234567${ending}`,
              reference: `schema-check-${ending}`,
            },
            { token: partner.token },
          );
          assert.equal(sent.status, 202, sent.text);
          await until(
            `the transfer ending ${ending} ${final}`,
            async () =>
              (await t.api.get(transferUrl(sent.body.data.id), { token: partner.token })).body.data.status ===
                final || undefined,
            15_000,
          );
        }
        const deactivated = await t.api.post(
          lifecycleUrl(account.account_number, 'deactivate'),
          { reason: 'Customer asked to pause the account.' },
          { token: partner.token },
        );
        assert.equal(deactivated.status, 200, deactivated.text);
        const tested = await t.api.post(WEBHOOK_TEST, undefined, { token: partner.token });
        assert.equal(tested.status, 201, tested.text);

        // under_review, three document decisions, active, the three account events, the three
        // transfer events (failed; successful, then reversed) and the test event.
        await receiver.waitFor((deliveries) => deliveries.length >= 12, 15_000);
        await settled(t, partner.companyId);
        const payloads = receiver.received.map((delivery) => ({
          id: delivery.id,
          ...verifiedPayload(delivery),
        }));
        assert.deepEqual(
          [...new Set(payloads.map((payload) => payload.type))].sort(),
          GUIDE_EVENT_TYPES,
          'every event type was delivered',
        );
        const statusChanged = payloads.find((payload) => payload.type === 'virtual_account.status_changed')!;
        assert.deepEqual(statusChanged.data, deactivated.body.data);
        assert.equal(statusChanged.data.status, 'inactive');
        assert.equal(statusChanged.data.status_reason, 'Customer asked to pause the account.');

        const openapi = await t.api.get(OPENAPI);
        const validators = webhookValidators(openapi.body as unknown as Item);
        const events = await allEvents(t, partner.token);
        assert.deepEqual(
          ids(events).sort(),
          payloads.map((payload) => payload.id).sort(),
          'each sandbox event delivered once',
        );
        for (const { id, ...payload } of payloads) {
          const validator = validators.get(payload.type);
          assert.ok(validator, `a schema for ${payload.type}`);
          assertValid(validator.documented, payload, `${payload.type} ${id}`);
          assertValid(validator.strict, payload, `${payload.type} ${id} carries only documented fields`);
          const event = events.find((item) => item.id === id)!;
          assert.deepEqual(event.data, payload.data, `${id}: the events API holds what was delivered`);

          // The validators can fail: a payload missing a field, or of another type, is refused.
          const [firstField] = Object.keys(payload.data);
          const { [firstField!]: _dropped, ...missing } = payload.data;
          assert.equal(
            validator.documented({ ...payload, data: missing }),
            false,
            `${payload.type} without ${firstField}`,
          );
          assert.equal(validator.strict({ ...payload, data: { ...payload.data, extra: 1 } }), false);
          const otherType = GUIDE_EVENT_TYPES.find((type) => type !== payload.type)!;
          assert.equal(validator.documented({ ...payload, type: otherType }), false);
        }
      });

      // Moving the clock would expire other tests' sessions and codes, so these get an app (and clock) of their own.
      describe(`events API over time [${dialect.name}]`, { concurrency: false }, () => {
        // A longer delivery timeout than FAST_WEBHOOKS', so a receiver may hold an attempt in flight.
        const timed = useApp(dialect.name, { env: { ...FAST_WEBHOOKS, WEBHOOK_TIMEOUT_MS: '5000' } });

        it('redelivers with the same webhook-id and body, a fresh timestamp and signature, logged and audited', async (test) => {
          const { t, sink } = timed;
          const receiver = await startReceiver(test);
          const partner = await newPartner({ t, sink }, 'sandbox');
          await setEndpoint(t.api, partner.token, receiver);
          await createAccount(t, partner.sandboxKey);
          await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
          await settled(t, partner.companyId);
          const [event] = await allEvents(t, partner.sandboxKey);
          assert.ok(event);
          const first = receiver.received[0]!;
          assert.equal(first.id, event.id);

          // Two minutes on: within the receiver's five-minute tolerance, and a timestamp that must change.
          t.clock.advance(2 * 60 * 1000);
          const response = await t.api.post(redeliverUrl(event.id), undefined, { token: partner.sandboxKey });
          assert.equal(response.status, 202, response.text);
          assert.equal(response.body.status, 'success');
          assert.equal(response.body.data.id, event.id);
          assert.deepEqual(response.body.data.data, event.data);
          assert.equal(response.body.data.delivery.status, 'pending');

          await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
          const second = receiver.received[1]!;
          assert.equal(second.id, event.id, 'the same webhook-id');
          assert.equal(second.body, first.body, 'the same body');
          assert.deepEqual(verifiedPayload(second), verifiedPayload(first), 'verifies with the secret');
          assert.ok(
            Number(second.timestamp) >= Number(first.timestamp) + 119,
            `a fresh webhook-timestamp: ${first.timestamp} then ${second.timestamp}`,
          );
          assert.notEqual(second.signature, first.signature, 'a fresh signature');

          await settled(t, partner.companyId);
          const after = await t.api.get(eventUrl(event.id), { token: partner.sandboxKey });
          assert.equal(after.body.data.delivery.status, 'delivered');
          assert.equal(after.body.data.delivery.attempts, 2);
          assert.ok(
            Date.parse(after.body.data.delivery.delivered_at) >=
              Date.parse(event.delivery.delivered_at) + 119_000,
          );

          const log = await allDeliveries(t, partner.sandboxKey, `event_id=${event.id}`);
          assert.deepEqual(
            log.map((attempt) => attempt.attempt),
            [2, 1],
            'the redelivery is in the delivery log',
          );
          assert.ok(log.every((attempt) => attempt.event_id === event.id && attempt.succeeded === true));
          assert.equal(log[0].url, receiver.url);

          const audited = await auditActions(t, partner.companyId, 'webhook.event_redelivered');
          assert.equal(audited.length, 1);
          assert.equal(audited[0]!.target_id, event.id);
          assert.equal(audited[0]!.target_type, 'webhook_event');
          assert.equal(receiver.received.length, 2, 'one more delivery, not more');
        });

        it('allows 10 manual resends a minute per partner, redeliveries and retries together, then 429 with Retry-After until the window passes', async (test) => {
          const { t, sink } = timed;
          const receiver = await startReceiver(test);
          const partner = await newPartner({ t, sink }, 'sandbox');
          const other = await newPartner({ t, sink }, 'sandbox');
          await setEndpoint(t.api, partner.token, receiver);
          await setEndpoint(t.api, other.token, receiver);
          await createAccount(t, partner.sandboxKey);
          await createAccount(t, other.sandboxKey);
          await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
          await settled(t, partner.companyId);
          await settled(t, other.companyId);
          const [event] = await allEvents(t, partner.sandboxKey);
          const [otherEvent] = await allEvents(t, other.sandboxKey);
          assert.ok(event && otherEvent);
          const [attempt] = await allDeliveries(t, partner.sandboxKey);
          assert.ok(attempt);
          const key = partner.sandboxKey;
          const redeliver = () => t.api.post(redeliverUrl(event.id), undefined, { token: key });
          const retry = () => t.api.post(retryUrl(attempt.id), undefined, { token: key });

          for (let i = 0; i < 5; i++) {
            const redelivered = await redeliver();
            assert.equal(redelivered.status, 202, `redelivery ${i + 1}: ${redelivered.text}`);
            const retried = await retry();
            assert.equal(retried.status, 201, `retry ${i + 1}: ${retried.text}`);
          }
          const limited = await redeliver();
          assertError(limited, 429, 'RATE_LIMITED', { what: 'the 11th resend, a redelivery' });
          const wait = retryAfterSeconds(limited);
          assert.ok(wait <= 60, `Retry-After within the minute: ${wait}`);
          assertError(await retry(), 429, 'RATE_LIMITED', { what: 'a retry past the shared budget' });
          assert.equal((await auditActions(t, partner.companyId, 'webhook.event_redelivered')).length, 5);
          assert.equal((await auditActions(t, partner.companyId, 'webhook.delivery_retried')).length, 5);

          // Another partner's budget is its own.
          const theirs = await t.api.post(redeliverUrl(otherEvent.id), undefined, {
            token: other.sandboxKey,
          });
          assert.equal(theirs.status, 202, theirs.text);

          // Once Retry-After has passed, a new window.
          t.clock.advance(wait * 1000);
          const again = await redeliver();
          assert.equal(again.status, 202, again.text);
          const retriedAgain = await retry();
          assert.equal(retriedAgain.status, 201, retriedAgain.text);
          assert.equal((await auditActions(t, partner.companyId, 'webhook.event_redelivered')).length, 6);
          await settled(t, partner.companyId);
        });

        it('purges events older than 30 days at housekeeping, with their delivery log, and keeps younger ones', async (test) => {
          const { t, sink } = timed;
          const receiver = await startReceiver(test);
          const partner = await newPartner({ t, sink }, 'sandbox');
          const key = partner.sandboxKey;
          // An old skipped event (no endpoint yet) and an old delivered one.
          const account = await createAccount(t, key);
          await settled(t, partner.companyId);
          await setEndpoint(t.api, partner.token, receiver);
          const credit = await t.api.post(creditUrl(account.account_number), { amount: 10 }, { token: key });
          assert.equal(credit.status, 201, credit.text);
          await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
          await settled(t, partner.companyId);
          // Two minutes later, a younger delivered one.
          t.clock.advance(2 * 60 * 1000);
          await createAccount(t, key);
          await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
          await settled(t, partner.companyId);
          const [young, oldDelivered, oldSkipped] = await allEvents(t, key);
          assert.ok(young && oldDelivered && oldSkipped);
          assert.equal(oldSkipped.delivery.status, 'skipped');
          assert.equal(oldDelivered.delivery.status, 'delivered');
          assert.equal(young.delivery.status, 'delivered');

          // The old ones are now 30 days and a minute old, the young one a minute short of 30 days.
          t.clock.advance(30 * DAY_MS - 60 * 1000);
          await t.app.housekeeping();
          assert.deepEqual(ids(await allEvents(t, key)), [young.id]);
          for (const gone of [oldDelivered, oldSkipped]) {
            assertError(await t.api.get(eventUrl(gone.id), { token: key }), 404, 'NOT_FOUND', {
              what: gone.type,
            });
            assertError(
              await t.api.post(redeliverUrl(gone.id), undefined, { token: key }),
              404,
              'NOT_FOUND',
              {
                what: `redelivering the purged ${gone.type}`,
              },
            );
          }
          const log = await allDeliveries(t, key);
          assert.deepEqual(
            log.map((attempt) => attempt.event_id),
            [young.id],
            "the purged events' attempts went with them",
          );
          assert.deepEqual(ids(await outboxEvents(t, partner.companyId)), [young.id]);

          // Two minutes later the young one is past 30 days too.
          t.clock.advance(2 * 60 * 1000);
          await t.app.housekeeping();
          assert.deepEqual(await allEvents(t, key), []);
          assertError(await t.api.get(eventUrl(young.id), { token: key }), 404, 'NOT_FOUND');
          assert.deepEqual(await allDeliveries(t, key), []);
        });

        it('keeps an event past 30 days while a redelivery of it is in flight, and purges it once settled', async (test) => {
          const { t, sink } = timed;
          const receiver = await startReceiver(test);
          const partner = await newPartner({ t, sink }, 'sandbox');
          const key = partner.sandboxKey;
          await setEndpoint(t.api, partner.token, receiver);
          await createAccount(t, key);
          await receiver.waitFor((deliveries) => deliveries.length >= 1, 10_000);
          await settled(t, partner.companyId);
          const [event] = await allEvents(t, key);
          assert.ok(event);

          t.clock.advance(30 * DAY_MS + 60 * 1000);
          receiver.delayMs = 1500;
          const redelivered = await t.api.post(redeliverUrl(event.id), undefined, { token: key });
          assert.equal(redelivered.status, 202, redelivered.text);
          await receiver.waitFor((deliveries) => deliveries.length >= 2, 10_000);
          const logsBefore = t.logs.length;
          // The receiver holds the answer: the event is being delivered while housekeeping runs.
          await t.app.housekeeping();
          const during = await t.api.get(eventUrl(event.id), { token: key });
          assert.equal(during.status, 200, `an event in flight is left to its attempt: ${during.text}`);
          assert.equal(during.body.data.delivery.status, 'pending');

          await settled(t, partner.companyId);
          const after = await t.api.get(eventUrl(event.id), { token: key });
          assert.equal(after.body.data.delivery.status, 'delivered');
          assert.equal(after.body.data.delivery.attempts, 2);
          assert.deepEqual(
            (await allDeliveries(t, key, `event_id=${event.id}`)).map((attempt) => attempt.attempt),
            [2, 1],
            'the attempt was recorded',
          );
          assert.deepEqual(
            t.logs
              .slice(logsBefore)
              .filter((line) => line.includes('"level":"error"') || line.includes('job failed')),
            [],
            'the worker logged no failure',
          );

          // Settled, it goes at the next housekeeping.
          await t.app.housekeeping();
          assertError(await t.api.get(eventUrl(event.id), { token: key }), 404, 'NOT_FOUND');
          assert.deepEqual(await allDeliveries(t, key), []);
        });

        it('reads a date alone in created_from and created_to as that whole UTC day', async () => {
          const { t, sink } = timed;
          const partner = await newPartner({ t, sink }, 'sandbox');
          const key = partner.sandboxKey;
          // A minute before midnight (UTC) of a day ahead of wherever the clock is now.
          const day = isoDay(t.clock.now() + 400 * DAY_MS);
          pinClock(t, `${day}T23:59:00.000Z`);
          const late = await createAccount(t, key);
          t.clock.advance(90 * 1000);
          const early = await createAccount(t, key);
          t.clock.advance(DAY_MS);
          const later = await createAccount(t, key);
          const nextDay = isoDay(Date.parse(`${day}T12:00:00Z`) + DAY_MS);
          const dayAfter = isoDay(Date.parse(`${day}T12:00:00Z`) + 2 * DAY_MS);

          const [c, b, a] = await allEvents(t, key);
          assert.ok(a && b && c);
          assert.deepEqual(
            [a.data.account_number, b.data.account_number, c.data.account_number],
            [late.account_number, early.account_number, later.account_number],
          );
          assert.ok(a.created_at.startsWith(`${day}T23:59:`), a.created_at);
          assert.ok(b.created_at.startsWith(`${nextDay}T00:00:`), b.created_at);
          assert.ok(c.created_at.startsWith(`${dayAfter}T00:0`), c.created_at);

          const cases: Array<[Record<string, string>, Item[]]> = [
            [{ created_from: day, created_to: day }, [a]],
            [{ created_from: nextDay, created_to: nextDay }, [b]],
            [{ created_from: dayAfter, created_to: dayAfter }, [c]],
            [{ created_to: day }, [a]],
            [{ created_from: nextDay }, [c, b]],
            [{ created_from: day, created_to: nextDay }, [b, a]],
            [{ created_from: `${day}T23:59:00Z`, created_to: nextDay }, [b, a]],
            [{ created_from: day, created_to: `${day}T23:58:59.999Z` }, []],
          ];
          for (const [params, expected] of cases) {
            assert.deepEqual(ids((await eventsPage(t, key, params)).items), ids(expected), query(params));
          }
          const page = await eventsPage(t, key, { created_from: day, limit: 1 });
          const rest = await eventsPage(t, key, {
            created_from: `${day}T00:00:00Z`,
            cursor: page.next_cursor!,
          });
          assert.deepEqual(ids(rest.items), ids([b, a]), 'a date and its first instant are one filter');
        });
      });
    });
  }
});
