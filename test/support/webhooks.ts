import assert from 'node:assert/strict';
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import type { TestContext } from 'node:test';
import type { TestApp } from './app.js';
import { until } from './assertions.js';
import type { Api, ApiResponse } from './http.js';
import { listAll } from './http.js';
import { newPartner, type PartnerKit } from './partners.js';
import { DELIVERIES, WEBHOOK } from './paths.js';
import { attemptsOf, type HasDb, outboxEvents } from './records.js';
import { type ReceivedWebhook, WebhookReceiver } from './webhook-receiver.js';

/** Worker settings that make retries observable within a test's time budget. */
export const FAST_WEBHOOKS: Record<string, string> = {
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
};

export interface WebhookPayload {
  type: string;
  timestamp: string;
  // biome-ignore lint/suspicious/noExplicitAny: event data is compared with API objects.
  data: any;
}

/** The payload exactly as the public Standard Webhooks library verified it; fails if it did not. */
export function verifiedPayload(delivery: ReceivedWebhook): WebhookPayload {
  assert.ok(delivery.verified, `delivery ${delivery.id} does not verify: ${delivery.body}`);
  return delivery.verified as WebhookPayload;
}

/** A loopback receiver of the test's own, stopped when the test ends (tests of a suite may run concurrently). */
export async function startReceiver(test: TestContext, port = 0): Promise<WebhookReceiver> {
  const receiver = await new WebhookReceiver().start(port);
  test.after(() => receiver.stop());
  return receiver;
}

/** PUTs the endpoint and hands its secret to the receiver, so every delivery is verified. */
export async function setEndpoint(
  api: Api,
  token: string,
  receiver: WebhookReceiver,
  url = receiver.url,
): Promise<ApiResponse> {
  const response = await api.put(WEBHOOK, { url }, { token });
  assert.ok([200, 201].includes(response.status), response.text);
  receiver.secret = response.body.data.secret;
  return response;
}

/** A signed-in partner whose webhook endpoint is a receiver of the test's own. */
export async function subscribedPartner(test: TestContext, app: PartnerKit) {
  const receiver = await startReceiver(test);
  const partner = await newPartner(app, 'signed-in');
  await setEndpoint(app.t.api, partner.token, receiver);
  return { partner, receiver };
}

/** The partner's first event, once its first delivery attempt is recorded. */
export async function firstAttempt(t: HasDb, partnerId: number) {
  const [event] = await outboxEvents(t, partnerId);
  assert.ok(event, `partner ${partnerId} has an event`);
  const attempt = await until('the first automatic attempt', async () => (await attemptsOf(t, event.id))[0]);
  return { event, attempt };
}

/** Waits until none of the partner's events is pending (every one delivered, failed or skipped). */
export function settled(t: HasDb, partnerId: number, timeoutMs = 10_000) {
  return until(
    `partner ${partnerId}'s outbox to settle`,
    async () => {
      const events = await outboxEvents(t, partnerId);
      return events.every((event) => event.status !== 'pending') && events;
    },
    timeoutMs,
  );
}

/** Every attempt in the delivery log (`query` filters it, e.g. `event_id=…`). */
export function allDeliveries(t: { api: Api }, token: string, query = '', limit = 100) {
  return listAll(t, query ? `${DELIVERIES}?${query}` : DELIVERIES, token, limit);
}

/** One answer of fakeDns: the addresses, or the error code getaddrinfo would fail with. */
export type DnsAnswer = string[] | { code: 'ENOTFOUND' | 'EAI_AGAIN' };

const fakeNames = new Map<string, { answers: DnsAnswer[]; seen: DnsAnswer[] }>();
let realLookup: typeof dns.lookup | undefined;

function fakeLookup(hostname: string, options: unknown, callback: unknown): void {
  const fake = fakeNames.get(hostname);
  if (!fake) {
    (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
    return;
  }
  const answer = fake.answers[Math.min(fake.seen.length, fake.answers.length - 1)]!;
  fake.seen.push(answer);
  const done = callback as (
    error: NodeJS.ErrnoException | null,
    addresses?: unknown,
    family?: number,
  ) => void;
  if (!Array.isArray(answer)) {
    const error: NodeJS.ErrnoException = new Error(`getaddrinfo ${answer.code} ${hostname}`);
    error.code = answer.code;
    process.nextTick(done, error);
    return;
  }
  const all = answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all) {
    process.nextTick(done, null, all);
  } else {
    process.nextTick(done, null, all[0]!.address, all[0]!.family);
  }
}

/**
 * Makes `name` resolve to `answers` (one per lookup, the last one repeating) in this process, the
 * app's sender included, until the test ends; other names resolve normally, and tests running at
 * the same time may fake other names. Returns the answers given so far.
 */
export function fakeDns(test: TestContext, name: string, answers: DnsAnswer[]): DnsAnswer[] {
  const seen: DnsAnswer[] = [];
  fakeNames.set(name, { answers, seen });
  if (!realLookup) {
    realLookup = dns.lookup;
    (dns as { lookup: unknown }).lookup = fakeLookup;
    // The sender imports `lookup` from node:dns as an ES module binding; this makes it see the fake.
    syncBuiltinESMExports();
  }
  test.after(() => {
    fakeNames.delete(name);
    if (fakeNames.size === 0 && realLookup) {
      (dns as { lookup: unknown }).lookup = realLookup;
      realLookup = undefined;
      syncBuiltinESMExports();
    }
  });
  return seen;
}

/** The app's log lines (JSON) that mention `text`. */
export function logLinesWith(t: Pick<TestApp, 'logs'>, text: string): string[] {
  return t.logs.filter((line) => line.includes(text));
}
