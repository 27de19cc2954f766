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
export type DecisionProposal = Schemas['DecisionProposal'];
export type ProposalAction = DecisionProposal['action'];
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

export type CreditNotification = Schemas['BankCreditNotification'];
export type CreditNotificationOutcome = CreditNotification['outcome'];

export type AdminTransfer = Schemas['AdminTransfer'];
export type TransferStatus = AdminTransfer['status'];
export type Environment = AdminTransfer['environment'];
export type DailyReport = Schemas['DailyReport'];
