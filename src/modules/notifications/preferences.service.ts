import type { Kysely } from 'kysely';
import { actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite } from '../../platform/audit/audited-write.js';
import type { SessionCredential } from '../../platform/auth/credentials.js';
import type { Database } from '../../platform/db/schema.js';
import { type FieldErrors, validationError } from '../../platform/errors/errors.js';
import * as repo from './notifications.repository.js';
import {
  PARTNER_KIND_NAMES,
  PARTNER_KINDS,
  type PartnerKind,
  SECURITY_RELEVANT,
} from './notifications.templates.js';
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

  async function update(session: SessionCredential, body: PreferencesBody, meta: RequestMeta) {
    const changes = PARTNER_KIND_NAMES.flatMap((kind) => {
      const enabled = body[kind];
      return enabled === undefined ? [] : [{ kind, enabled }];
    });
    const errors: FieldErrors = {};
    for (const { kind, enabled } of changes) {
      if (!enabled && SECURITY_RELEVANT.has(kind)) {
        errors[kind] = [
          'This e-mail cannot be turned off: it changes what the business may do with live money.',
        ];
      }
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const off: PartnerKind[] = changes.filter((change) => !change.enabled).map((change) => change.kind);
    const on: PartnerKind[] = changes.filter((change) => change.enabled).map((change) => change.kind);
    await write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      await repo.setMutes(trx, session.userId, { off, on }, now);
      audit({
        action: 'user.notifications_changed',
        targetType: 'user',
        targetId: session.userId,
        metadata: { off, on },
      });
    });
    return list(session);
  }

  return { list, update };
}
