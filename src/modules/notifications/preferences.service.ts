import type { Kysely } from 'kysely';
import { actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { SessionCredential } from '../../platform/auth/credentials.js';
import type { Database } from '../../platform/db/schema.js';
import { validationError } from '../../platform/errors/errors.js';
import * as repo from './notifications.repository.js';
import { PARTNER_KIND_NAMES, PARTNER_KINDS, SECURITY_RELEVANT } from './notifications.templates.js';
import type { PreferencesBody } from './preferences.schemas.js';

export type NotificationPreferences = ReturnType<typeof createNotificationPreferences>;

/**
 * Each dashboard user's own choice of the e-mails they receive (docs/partner-guide.md, "E-mail
 * notifications"): every kind is on until the user turns it off; suspension and reinstatement
 * cannot be. Only owners and admins receive them; anyone may set theirs for when their role changes.
 */
export function createNotificationPreferences({ db, write }: { db: Kysely<Database>; write: AuditedWrite }) {
  async function list(session: SessionCredential) {
    const muted = await repo.mutedKinds(db, session.userId);
    return PARTNER_KIND_NAMES.map((kind) => ({
      kind,
      description: PARTNER_KINDS[kind],
      enabled: !muted.has(kind),
      required: SECURITY_RELEVANT.has(kind),
    }));
  }

  async function update(session: SessionCredential, { kind, enabled }: PreferencesBody, meta: RequestMeta) {
    if (!enabled && SECURITY_RELEVANT.has(kind)) {
      throw validationError({
        kind: ['This e-mail cannot be turned off: it changes what the business may do with live money.'],
      });
    }
    await write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      await repo.setMutes(
        trx,
        session.userId,
        { off: enabled ? [] : [kind], on: enabled ? [kind] : [] },
        now,
      );
      audit({
        action: 'user.notifications_changed',
        targetType: 'user',
        targetId: session.userId,
        metadata: { kind, enabled },
      });
    });
    return list(session);
  }

  return { list, update };
}
