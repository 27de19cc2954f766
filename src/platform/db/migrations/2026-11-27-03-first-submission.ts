import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * When a partner first submitted its application (null: never). Until then the registration's
 * business_name and phone may be corrected (an owner who took an address back from a squatter).
 * Backfilled from the audit trail: a partner's first onboarding status change is its first
 * submission, since nothing else moves an application out of in_progress; a partner past in_progress
 * without one (none is expected) counts as submitted at its last update.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('partners').addColumn('first_submitted_at', 'bigint').execute();
  await sql`update partners set first_submitted_at = coalesce(
      (select min(audit_events.created_at) from audit_events
        where audit_events.partner_id = partners.id and audit_events.action = 'onboarding.status_changed'),
      case when onboarding_status <> 'in_progress' then updated_at end)`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('partners').dropColumn('first_submitted_at').execute();
}
