import type { Kysely } from 'kysely';
import { toIso } from '../clock.js';
import type { KeyRing } from '../crypto/keys.js';
import type { Database } from '../db/schema.js';
import { extend } from '../objects.js';
import { keysetCursor } from '../pagination/cursor.js';
import { type AuditFilter, listAuditEvents } from './audit.repository.js';

export type AuditService = ReturnType<typeof createAuditService>;

/** The e-mail of each of these operators that exists, by id (given by the composition root). */
export type OperatorEmails = (ids: readonly string[]) => Promise<Map<string, string>>;

/** The audit trail as the back office reads it: operator actors named by e-mail (the console shows who decided). */
export function createAuditService(db: Kysely<Database>, keys: KeyRing, operatorEmails: OperatorEmails) {
  return {
    /** Newest first; `cursor` is the next_cursor of the previous page. */
    async list(filter: AuditFilter & { cursor?: string; limit: number }) {
      const cursor = keysetCursor(keys.cursor, 'audit_events', 'operator', 'string');
      const beforeId = cursor.decode(filter.cursor);
      const { cursor: _, ...where } = filter;
      const rows = await listAuditEvents(db, extend(where, { beforeId }));
      const page = cursor.page(rows, filter.limit, (row) => row.id);
      const emails = await operatorEmails(
        page.items.flatMap((event) =>
          event.actor_type === 'operator' && event.actor_id !== null ? [event.actor_id] : [],
        ),
      );
      return {
        next_cursor: page.next_cursor,
        items: page.items.map((event) => ({
          id: event.id,
          company_id: event.partner_id,
          actor: {
            type: event.actor_type,
            id: event.actor_id,
            email: event.actor_type === 'operator' ? (emails.get(event.actor_id ?? '') ?? null) : null,
          },
          action: event.action,
          target: event.target_type ? { type: event.target_type, id: event.target_id } : null,
          metadata: event.metadata === null ? null : (JSON.parse(event.metadata) as Record<string, unknown>),
          request_id: event.request_id,
          ip: event.ip,
          created_at: toIso(event.created_at),
        })),
      };
    },
  };
}
