import assert from 'node:assert/strict';
import { adminHeaders, adminPost } from '../support/admin.js';
import type { AppContext } from '../support/app.js';
import { listAll } from '../support/http.js';
import { AUDIT_EVENTS, adminPartnerUrl } from '../support/paths.js';
import { outboxEvents } from '../support/records.js';
import { FAST_WEBHOOKS } from '../support/webhooks.js';

/** What the suspension tests share: the app's settings, the operator's two calls, what they leave behind. */

/**
 * The webhook worker polls fast, but a failed attempt waits a minute before its retry: an event held
 * back that way stays queued until the test moves the app's clock, whatever the machine's speed.
 */
export const RETRY_BASE_MS = 60_000;
export const WEBHOOK_ENV = { ...FAST_WEBHOOKS, WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) };

export const REASON = 'Chargeback ratio above the agreed threshold; under investigation.';

interface AuditItem {
  company_id: number | null;
  actor: { type: string; id: string | null };
  action: string;
  target: { type: string; id: string | null } | null;
  metadata: Record<string, unknown> | null;
  request_id: string | null;
  ip: string | null;
}

export const suspend = (suite: AppContext, companyId: number | string, body: unknown = { reason: REASON }) =>
  adminPost(suite.t, adminPartnerUrl(companyId, 'suspend'), body);
export const reinstate = (suite: AppContext, companyId: number | string) =>
  adminPost(suite.t, adminPartnerUrl(companyId, 'reinstate'));

export async function suspended(suite: AppContext, companyId: number, reason = REASON) {
  const response = await suspend(suite, companyId, { reason });
  assert.equal(response.status, 200, response.text);
  return response;
}

/** The operator's audit trail of the partner's onboarding_status changes, oldest first. */
export async function statusAudits(suite: AppContext, companyId: number): Promise<AuditItem[]> {
  const items: AuditItem[] = await listAll(suite.t, `${AUDIT_EVENTS}?company_id=${companyId}`, adminHeaders);
  return items.filter((item) => item.action === 'onboarding.status_changed').reverse();
}

/** The partner's onboarding.status_changed outbox events announcing `status`. */
export async function statusEvents(suite: AppContext, companyId: number, status: string) {
  return (await outboxEvents(suite.t, companyId)).filter(
    (event) =>
      event.type === 'onboarding.status_changed' && JSON.parse(event.payload).onboarding_status === status,
  );
}

export function liveAccountNumbers(suite: AppContext, companyId: number): Promise<string[]> {
  return suite.t.db
    .selectFrom('virtual_accounts')
    .select('account_number')
    .where('partner_id', '=', companyId)
    .where('environment', '=', 'live')
    .orderBy('account_number')
    .execute()
    .then((rows) => rows.map((row) => row.account_number));
}
