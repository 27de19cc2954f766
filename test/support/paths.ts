import { API_PREFIX } from '../../src/app.js';

/** Every API path the tests call, once (all under API_PREFIX, as docs/partner-guide.md says). */
export { API_PREFIX };

const ONBOARDING = `${API_PREFIX}/client/onboarding`;
const SETTINGS = `${API_PREFIX}/services/partner/settings`;
/** What every operator path starts with. */
export const ADMIN_PREFIX = `${API_PREFIX}/admin/`;

export const REGISTER = `${ONBOARDING}/register`;
export const VERIFY_OTP = `${ONBOARDING}/verify-otp`;
export const RESEND_OTP = `${ONBOARDING}/resend-otp`;
export const FORGOT_PASSWORD = `${ONBOARDING}/password/forgot`;
export const RESET_PASSWORD = `${ONBOARDING}/password/reset`;
export const LOGIN = `${ONBOARDING}/login`;
export const LOGOUT = `${ONBOARDING}/logout`;
export const BUSINESS_INFO = `${ONBOARDING}/business-info`;
export const REPRESENTATIVE = `${ONBOARDING}/representative`;
export const DOCUMENTS = `${ONBOARDING}/documents`;
/** The partner's own download of a document it uploaded. */
export const documentFileUrl = (documentId: string) => `${DOCUMENTS}/${documentId}/file`;
export const SUBMIT = `${ONBOARDING}/submit`;
export const ENVIRONMENT = `${ONBOARDING}/environment`;

export const API_KEYS = `${SETTINGS}/api-keys`;
export const apiKeyUrl = (id: string) => `${API_KEYS}/${id}`;
export const TEAM = `${SETTINGS}/team`;
export const USERS = `${SETTINGS}/users`;
export const USERS_ME = `${USERS}/me`;
export const userUrl = (id: string) => `${USERS}/${id}`;
export const INVITATIONS = `${SETTINGS}/invitations`;
export const invitationUrl = (id: string) => `${INVITATIONS}/${id}`;
export const PREVIEW_INVITATION = `${ONBOARDING}/invitations/preview`;
export const ACCEPT_INVITATION = `${ONBOARDING}/invitations/accept`;
export const SESSION = `${ONBOARDING}/session`;
export const memberUrl = (memberId: string) => `${TEAM}/${memberId}`;

export const VIRTUAL_ACCOUNTS = `${API_PREFIX}/services/virtual-account`;
export const CREATE_ACCOUNT = `${VIRTUAL_ACCOUNTS}/create`;
export const accountUrl = (accountNumber: string) => `${VIRTUAL_ACCOUNTS}/${accountNumber}`;
export const creditUrl = (accountNumber: string) => `${VIRTUAL_ACCOUNTS}/${accountNumber}/simulate-credit`;
export const transactionsUrl = (accountNumber: string) => `${VIRTUAL_ACCOUNTS}/${accountNumber}/transactions`;
/** A lifecycle change of an account: `deactivate`, `reactivate` or `close`. */
export const lifecycleUrl = (accountNumber: string, action: 'deactivate' | 'reactivate' | 'close') =>
  `${VIRTUAL_ACCOUNTS}/${accountNumber}/${action}`;
export const statementUrl = (accountNumber: string, from: string, to: string) =>
  `${VIRTUAL_ACCOUNTS}/${accountNumber}/statement?from=${from}&to=${to}`;

/** What the sponsor bank's connector calls (docs/operator-guide.md, "The bank connector"). */
export const BANK_CREDIT_NOTIFICATIONS = `${API_PREFIX}/bank/credit-notifications`;
export const BANK_TRANSFER_UPDATES = `${API_PREFIX}/bank/transfer-updates`;
export const ADMIN_CREDIT_NOTIFICATIONS = `${ADMIN_PREFIX}bank/credit-notifications`;

/** Money out (docs/partner-guide.md, "Sending money"). */
export const BANKS = `${API_PREFIX}/services/banks`;
export const TRANSFERS = `${API_PREFIX}/services/transfers`;
export const NAME_ENQUIRY = `${TRANSFERS}/name-enquiry`;
export const transferUrl = (id: string) => `${TRANSFERS}/${id}`;

export const EVENTS = `${API_PREFIX}/services/events`;
export const eventUrl = (eventId: string) => `${EVENTS}/${eventId}`;
export const redeliverUrl = (eventId: string) => `${EVENTS}/${eventId}/redeliver`;

export const WEBHOOK = `${SETTINGS}/webhook`;
export const ROTATE_SECRET = `${WEBHOOK}/rotate-secret`;
export const WEBHOOK_TEST = `${WEBHOOK}/test`;
export const DELIVERIES = `${WEBHOOK}/deliveries`;
export const retryUrl = (attemptId: string) => `${DELIVERIES}/${attemptId}/retry`;

export const ADMIN_PARTNERS = `${ADMIN_PREFIX}partners`;
/** An operator's partner record, or one of its decisions (`approve`, `reject`, `request-changes`). */
export const adminPartnerUrl = (companyId: number | string, action?: string) =>
  `${ADMIN_PARTNERS}/${companyId}${action ? `/${action}` : ''}`;
/** An operator's decision on a document (`approve`, `reject`) or its `file`. */
export const adminDocumentUrl = (companyId: number | string, documentId: string, action: string) =>
  `${ADMIN_PARTNERS}/${companyId}/documents/${documentId}/${action}`;
export const AUDIT_EVENTS = `${ADMIN_PREFIX}audit-events`;
export const ADMIN_TRANSFERS = `${ADMIN_PREFIX}transfers`;
export const DAILY_REPORT = `${ADMIN_PREFIX}reports/daily`;

export const OPENAPI = `${API_PREFIX}/openapi.json`;
export const OPERATOR_OPENAPI = `${ADMIN_PREFIX}openapi.json`;

/** Dashboard users' second factor (docs/partner-guide.md, "Second factor"). */
export const LOGIN_SECOND_FACTOR = `${ONBOARDING}/login/second-factor`;
export const MY_SECOND_FACTOR = `${SETTINGS}/users/me/second-factor`;
export const MY_SECOND_FACTOR_CONFIRM = `${MY_SECOND_FACTOR}/confirm`;
export const userSecondFactorReset = (userId: string) => `${SETTINGS}/users/${userId}/second-factor/reset`;
export const SECURITY_SETTINGS = `${SETTINGS}/security`;
