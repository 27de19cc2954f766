import type { AuditTables } from '../audit/audit.table.js';
import type { OutboxTables } from '../events/outbox.table.js';
import type { IdempotencyKeysTable } from '../idempotency/idempotency.table.js';
import type { LimitsTables } from '../limits/limits.table.js';
import type { MailTables } from '../mail/mail.table.js';

/**
 * Every table of the service, for Kysely's typing. The platform's own tables are named here; the
 * modules' are added to this interface by src/database.ts (declaration merging), at the level that
 * composes the modules, so that the platform names no module.
 */
export interface Database extends AuditTables, LimitsTables, MailTables, OutboxTables {
  idempotency_keys: IdempotencyKeysTable;
}
