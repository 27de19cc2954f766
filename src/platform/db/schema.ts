import type { AccountsTables } from '../../modules/accounts/accounts.table.js';
import type { AuditTables } from '../audit/audit.table.js';

/** Every table of the service, for Kysely's typing. */
export interface Database extends AccountsTables, AuditTables {}
