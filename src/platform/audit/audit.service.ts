import type { Kysely } from 'kysely';
import { toIso } from '../clock.js';
import type { KeyRing } from '../crypto/keys.js';
import type { Database } from '../db/schema.js';
import { extend } from '../objects.js';
import { keysetCursor } from '../pagination/cursor.js';
import { type AuditFilter, listAuditEvents } from './audit.repository.js';

/** Events an export reads at a time. */
const EXPORT_PAGE = 1000;

export type AuditService = ReturnType<typeof createAuditService>;

/**
 * Who the ids of the audit trail are, given by the composition root (the platform names no module):
 * operators and partners by id, and the ids whose name or e-mail holds a text.
 */
export interface AuditDirectory {
  operators: {
    namesOf(ids: readonly string[]): Promise<Map<string, { name: string; email: string }>>;
    idsMatching(text: string, limit: number): Promise<string[]>;
  };
  partners: {
    namesOf(ids: readonly number[]): Promise<Map<number, string>>;
    idsMatching(text: string, limit: number): Promise<number[]>;
  };
  /** Partners' dashboard users (removed ones too) by id. */
  users: {
    namesOf(ids: readonly string[]): Promise<Map<string, { name: string; email: string }>>;
  };
}

/** Matches a name search resolves to at most: a broader search should be narrowed. */
const MAX_NAME_MATCHES = 500;

export interface AuditListFilter extends AuditFilter {
  /** Text in the business name or e-mail of the partner the event belongs to. */
  company?: string;
  /** Text in the name or e-mail of the operator who acted. */
  operator?: string;
}

/** The audit trail as the back office reads it: operators and partners named (the console shows who acted). */
export function createAuditService(db: Kysely<Database>, keys: KeyRing, directory: AuditDirectory) {
  async function resolve(filter: AuditListFilter): Promise<AuditFilter | null> {
    const { company, operator, ...where } = filter;
    const resolved: AuditFilter = where;
    if (company !== undefined) {
      const ids = await directory.partners.idsMatching(company, MAX_NAME_MATCHES);
      if (ids.length === 0) return null;
      resolved.partnerIds = ids;
    }
    if (operator !== undefined) {
      const ids = await directory.operators.idsMatching(operator, MAX_NAME_MATCHES);
      if (ids.length === 0) return null;
      resolved.operatorIds = ids;
    }
    return resolved;
  }

  async function describe(rows: Awaited<ReturnType<typeof listAuditEvents>>) {
    const operators = await directory.operators.namesOf(
      rows.flatMap((event) =>
        event.actor_type === 'operator' && event.actor_id !== null ? [event.actor_id] : [],
      ),
    );
    const users = await directory.users.namesOf(
      rows.flatMap((event) =>
        event.actor_type === 'user' && event.actor_id !== null ? [event.actor_id] : [],
      ),
    );
    const partners = await directory.partners.namesOf([
      ...new Set(rows.flatMap((event) => (event.partner_id === null ? [] : [event.partner_id]))),
    ]);
    return rows.map((event) => {
      // A person who acted: an operator, or a partner's dashboard user (removed ones too).
      const person =
        event.actor_type === 'operator'
          ? operators.get(event.actor_id ?? '')
          : event.actor_type === 'user'
            ? users.get(event.actor_id ?? '')
            : undefined;
      const company = event.partner_id === null ? null : (partners.get(event.partner_id) ?? null);
      return {
        id: event.id,
        company_id: event.partner_id,
        company_name: company,
        actor: {
          type: event.actor_type,
          id: event.actor_id,
          name: person?.name ?? (event.actor_type === 'partner' ? company : null),
          email: person?.email ?? null,
        },
        action: event.action,
        target: event.target_type ? { type: event.target_type, id: event.target_id } : null,
        metadata: event.metadata === null ? null : (JSON.parse(event.metadata) as Record<string, unknown>),
        request_id: event.request_id,
        ip: event.ip,
        created_at: toIso(event.created_at),
      };
    });
  }

  return {
    /** Newest first; `cursor` is the next_cursor of the previous page, bound to the filter. */
    async list(filter: AuditListFilter & { cursor?: string; limit: number }) {
      const { cursor: given, limit, ...rest } = filter;
      const cursor = keysetCursor(keys.cursor, 'audit_events', `operator:${JSON.stringify(rest)}`, 'string');
      const beforeId = cursor.decode(given);
      const where = await resolve(rest);
      if (where === null) return { next_cursor: null, items: [] };
      const rows = await listAuditEvents(db, extend(where, { beforeId, limit }));
      const page = cursor.page(rows, limit, (row) => row.id);
      return { next_cursor: page.next_cursor, items: await describe(page.items) };
    },

    /** Every event the filter matches, a page at a time (for the CSV export). */
    async *exportPages(filter: AuditListFilter) {
      const where = await resolve(filter);
      if (where === null) return;
      let beforeId: string | undefined;
      for (;;) {
        const rows = await listAuditEvents(db, extend(where, { beforeId, limit: EXPORT_PAGE }));
        const page = rows.slice(0, EXPORT_PAGE);
        yield await describe(page);
        if (rows.length <= EXPORT_PAGE) return;
        beforeId = page.at(-1)?.id;
      }
    },
  };
}
