import type { AccountsTables } from './modules/accounts/accounts.table.js';
import type { SecondFactorTables } from './modules/accounts/second-factor.table.js';
import type { ApiKeysTable } from './modules/api-keys/api-keys.table.js';
import type { BankCreditNotificationsTable } from './modules/bank/bank.table.js';
import type { NotificationMutesTable } from './modules/notifications/notifications.table.js';
import type { OnboardingTables } from './modules/onboarding/onboarding.table.js';
import type { OperatorTables } from './modules/operators/operators.table.js';
import type { PartnersTables } from './modules/partners/partners.table.js';
import type { TeamMembersTable } from './modules/team/team.table.js';
import type { TransfersTables } from './modules/transfers/transfers.table.js';
import type {
  AccountTransactionsTable,
  VirtualAccountsTable,
} from './modules/virtual-accounts/virtual-accounts.table.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from './modules/webhooks/webhooks.table.js';

/**
 * The modules' tables, added to the platform's Database (platform/db/schema.ts): the database the app
 * composes, as Kysely types every query. Kysely's builders are invariant in their table map, so a
 * repository typed on its own tables would not accept this database; one merged interface keeps every
 * repository typed on the same Database while only this composition-level file names the modules.
 */
declare module './platform/db/schema.js' {
  interface Database
    extends AccountsTables,
      PartnersTables,
      OnboardingTables,
      OperatorTables,
      TransfersTables,
      SecondFactorTables {
    api_keys: ApiKeysTable;
    team_members: TeamMembersTable;
    virtual_accounts: VirtualAccountsTable;
    account_transactions: AccountTransactionsTable;
    webhook_endpoints: WebhookEndpointsTable;
    webhook_attempts: WebhookAttemptsTable;
    bank_credit_notifications: BankCreditNotificationsTable;
    notification_mutes: NotificationMutesTable;
  }
}
