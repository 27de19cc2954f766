import type { AccountsTables } from '../../modules/accounts/accounts.table.js';
import type { OnboardingTables } from '../../modules/onboarding/onboarding.table.js';
import type { AuditTables } from '../audit/audit.table.js';
import type { OutboxTables } from '../events/outbox.table.js';

/** Every table of the service, for Kysely's typing. */
export interface Database extends AccountsTables, AuditTables, OnboardingTables, OutboxTables {}
