import type { components } from './operator.generated';

/** Named types of the operator API's schemas (openapi/operator.json). */
type Schemas = components['schemas'];

export type OperatorSession = Schemas['OperatorSession'];
export type OperatorIdentity = Schemas['OperatorIdentity'];
export type OperatorRole = OperatorIdentity['role'];
export type AcceptedInvitation = Schemas['AcceptedInvitation'];
export type Invitation = Schemas['Invitation'];
export type SecondFactorEnrolment = Schemas['SecondFactorEnrolment'];
export type PartnerSummary = Schemas['PartnerSummary'];
export type PartnerRecord = Schemas['PartnerRecord'];
export type PartnerDocument = Schemas['PartnerDocument'];
export type PartnerRepresentative = Schemas['PartnerRepresentative'];
export type KycCheck = Schemas['KycCheck'];
export type OnboardingStatus = PartnerRecord['onboarding_status'];
export type DocumentType = PartnerDocument['document_type'];
export type AuditEvent = Schemas['AuditEvent'];
export type ActorType = AuditEvent['actor']['type'];
export type Operator = Schemas['Operator'];
export type PendingInvitation = Schemas['PendingInvitation'];
export type CreatedInvitation = Schemas['CreatedInvitation'];

/*
 * Hand-written until openapi/operator.json describes GET /admin/bank/credit-notifications (issue 28),
 * in the shape the server's branch documents; replaced by its generated schema then.
 */
export interface CreditNotification {
  id: string;
  session_id: string;
  account_number: string;
  amount: number;
  amount_kobo: number;
  narration: string | null;
  originator: { account_name: string; account_number: string; bank_code: string; bank_name: string | null };
  transaction_at: string;
  outcome: 'credited' | 'duplicate' | 'refused';
  error_code: 'ACCOUNT_INACTIVE' | 'ACCOUNT_CLOSED' | 'NOT_FOUND' | null;
  company_id: number | null;
  business_name: string | null;
  transaction_id: string | null;
  received_at: string;
}
export type CreditNotificationOutcome = CreditNotification['outcome'];
