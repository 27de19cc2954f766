import type { Migration } from 'kysely';
import * as accounts from './2026-11-21-01-accounts.js';
import * as onboarding from './2026-11-21-02-onboarding.js';
import * as services from './2026-11-21-03-services.js';
import * as webhooks from './2026-11-21-04-webhooks.js';
import * as hardening from './2026-11-23-01-hardening.js';
import * as lifecycle from './2026-11-23-02-lifecycle.js';
import * as operators from './2026-11-24-01-operators.js';
import * as operatorSecurity from './2026-11-27-01-operator-security.js';
import * as documentFiles from './2026-11-27-02-document-files.js';
import * as firstSubmission from './2026-11-27-03-first-submission.js';
import * as ledger from './2026-11-27-04-ledger.js';
import * as moneyIn from './2026-11-27-05-money-in.js';
import * as transfers from './2026-11-28-01-transfers.js';
import * as webhookInspection from './2026-11-28-02-webhook-inspection.js';
import * as accountSearch from './2026-11-28-03-account-search.js';
import * as phoneE164 from './2026-11-28-04-phone-e164.js';
import * as internalNotes from './2026-11-28-05-internal-notes.js';
import * as assignment from './2026-11-28-06-assignment.js';
import * as notifications from './2026-11-29-04-notifications.js';
import * as fourEyes from './2026-11-29-06-four-eyes.js';
import * as volumeIndexes from './2026-11-29-07-volume-indexes.js';
import * as partnerUsers from './2026-11-30-01-partner-users.js';
import * as webhookFairness from './2026-11-30-02-webhook-fairness.js';
import * as userSecondFactor from './2026-11-30-04-user-second-factor.js';
import * as notificationMutes from './2026-11-30-05-notification-mutes.js';

/** Every migration in order. Landed migrations are frozen: change the schema with a new one. */
export const migrations: Record<string, Migration> = {
  '2026-11-21-01-accounts': accounts,
  '2026-11-21-02-onboarding': onboarding,
  '2026-11-21-03-services': services,
  '2026-11-21-04-webhooks': webhooks,
  '2026-11-23-01-hardening': hardening,
  '2026-11-23-02-lifecycle': lifecycle,
  '2026-11-24-01-operators': operators,
  '2026-11-27-01-operator-security': operatorSecurity,
  '2026-11-27-02-document-files': documentFiles,
  '2026-11-27-03-first-submission': firstSubmission,
  '2026-11-27-04-ledger': ledger,
  '2026-11-27-05-money-in': moneyIn,
  '2026-11-28-01-transfers': transfers,
  '2026-11-28-02-webhook-inspection': webhookInspection,
  '2026-11-28-03-account-search': accountSearch,
  '2026-11-28-04-phone-e164': phoneE164,
  '2026-11-28-05-internal-notes': internalNotes,
  '2026-11-28-06-assignment': assignment,
  '2026-11-29-04-notifications': notifications,
  '2026-11-29-06-four-eyes': fourEyes,
  '2026-11-29-07-volume-indexes': volumeIndexes,
  '2026-11-30-01-partner-users': partnerUsers,
  '2026-11-30-02-webhook-fairness': webhookFairness,
  '2026-11-30-04-user-second-factor': userSecondFactor,
  '2026-11-30-05-notification-mutes': notificationMutes,
};
