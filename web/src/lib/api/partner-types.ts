import type { components, operations } from '@baas/sdk/generated';

/** Named types of the partner API's schemas (openapi/partner.json). */
type Schemas = components['schemas'];

export type PartnerSession = Schemas['CurrentSession'];
export type Environment = PartnerSession['environment'];
export type OnboardingProfile = Schemas['OnboardingProfile'];
export type PartnerOnboardingStatus = OnboardingProfile['onboarding_status'];
export type BusinessType = NonNullable<OnboardingProfile['business_type']>;
export type PartnerDocument = Schemas['Document'];
export type PartnerDocumentType = PartnerDocument['document_type'];
export type Requirements = Schemas['Requirements'];
export type RepresentativeResult = Schemas['RepresentativeResult'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type TeamMember = Schemas['TeamMember'];
export type VirtualAccount = Schemas['VirtualAccount'];
export type VirtualAccountStatus = VirtualAccount['status'];
export type Transaction = Schemas['Transaction'];
export type Credit = Schemas['Credit'];
/** What simulate-credit takes (sandbox): the amount, and optionally a narration, the sender, a session ID. */
export type SimulateCreditBody =
  operations['simulateVirtualAccountCredit']['requestBody']['content']['application/json'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type PartnerEvent = Schemas['Event'];
export type EventType = DeliveryAttempt['event_type'];
export type Bank = Schemas['Bank'];
export type NameEnquiry = Schemas['NameEnquiry'];
export type Transfer = Schemas['Transfer'];
export type TransferStatus = Transfer['status'];
/** What POST /services/transfers takes. */
export type CreateTransferBody = operations['createTransfer']['requestBody']['content']['application/json'];

/** A page of a cursor-paginated list (docs/partner-guide.md, "Pagination"). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Someone who signs in to a business's dashboard, and an invitation to become one. */
export type PartnerUser = Schemas['DashboardUser'];
export type NotificationPreference = Schemas['NotificationPreference'];
export type PartnerInvitation = Schemas['DashboardInvitation'];
export type InvitationPreview = Schemas['DashboardInvitationPreview'];
/** The signed-in user of a dashboard session. */
export type SessionUser = PartnerSession['user'];

/** The session's user and the access names their role holds in the current environment. */
export const sessionUserOf = (session: PartnerSession): { user: SessionUser; permissions: string[] } => ({
  user: session.user,
  permissions: session.permissions,
});
export type SecondFactorStatus = Schemas['DashboardSecondFactorStatus'];
export type SecondFactorPolicy = SecondFactorStatus['policy'];
export type SecuritySettings = Schemas['DashboardSecuritySettings'];
