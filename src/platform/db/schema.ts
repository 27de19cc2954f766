import type { AccountsTables } from '../../modules/accounts/accounts.table.js';
import type { ApiKeysTable } from '../../modules/api-keys/api-keys.table.js';
import type { OnboardingTables } from '../../modules/onboarding/onboarding.table.js';
import type { OperatorTables } from '../../modules/operators/operators.table.js';
import type { PartnersTables } from '../../modules/partners/partners.table.js';
import type { TeamMembersTable } from '../../modules/team/team.table.js';
import type {
  AccountTransactionsTable,
  VirtualAccountsTable,
} from '../../modules/virtual-accounts/virtual-accounts.table.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from '../../modules/webhooks/webhooks.table.js';
import type { AuditTables } from '../audit/audit.table.js';
import type { OutboxTables } from '../events/outbox.table.js';
import type { IdempotencyKeysTable } from '../idempotency/idempotency.table.js';
import type { LimitsTables } from '../limits/limits.table.js';
import type { MailTables } from '../mail/mail.table.js';

/** Every table of the service, for Kysely's typing. */
export interface Database
  extends AccountsTables,
    PartnersTables,
    AuditTables,
    LimitsTables,
    MailTables,
    OnboardingTables,
    OperatorTables,
    OutboxTables {
  api_keys: ApiKeysTable;
  team_members: TeamMembersTable;
  virtual_accounts: VirtualAccountsTable;
  account_transactions: AccountTransactionsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_attempts: WebhookAttemptsTable;
}
