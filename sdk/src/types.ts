/**
 * Named types of the SDK: every one is an alias of (or is derived from) what openapi-typescript
 * generated from openapi/partner.json into ./generated/partner.ts. Nothing here restates a field.
 */
import type { components, operations, webhooks } from './generated/partner.js';

export type { components, operations, paths, webhooks } from './generated/partner.js';

type Schemas = components['schemas'];

/** The JSON request body of an operation. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The multipart request body of an operation (files excluded: the SDK takes those as Blobs). */
export type MultipartBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'multipart/form-data': infer Body } };
}
  ? Body
  : never;

/** The query parameters of an operation. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** List filters of an operation: its query parameters less the cursor, which the iterators follow. */
export type ListOptions<Op extends keyof operations> = Omit<QueryOf<Op>, 'cursor'>;

// Resources.
export type VirtualAccount = Schemas['VirtualAccount'];
export type VirtualAccountStatus = VirtualAccount['status'];
export type Customer = Schemas['Customer'];
export type Transaction = Schemas['Transaction'];
export type Credit = Schemas['Credit'];
export type Statement = Schemas['Statement'];
export type Event = Schemas['Event'];
export type EventType = Event['type'];
export type EventDelivery = Schemas['EventDelivery'];
export type TeamMember = Schemas['TeamMember'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type OnboardingProfile = Schemas['OnboardingProfile'];
export type OnboardingStatus = OnboardingProfile['onboarding_status'];
export type Requirements = Schemas['Requirements'];
export type UploadedDocument = Schemas['UploadedDocument'];
export type RepresentativeResult = Schemas['RepresentativeResult'];
export type RegisteredPartner = Schemas['RegisteredPartner'];
export type VerifiedPartner = Schemas['VerifiedPartner'];
export type Session = Schemas['Session'];
export type Environment = Session['environment'];
export type EnvironmentSetting = Schemas['EnvironmentSetting'];
export type Bank = Schemas['Bank'];
export type NameEnquiry = Schemas['NameEnquiry'];
export type Transfer = Schemas['Transfer'];
export type TransferStatus = Transfer['status'];
export type TransferStatusChange = Schemas['TransferStatusChange'];
export type Beneficiary = Schemas['Beneficiary'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
/** A rotation's answer: `secret` is null in an idempotent replay (shown only in the first answer). */
export type RotatedWebhookEndpoint = Schemas['RotatedWebhookEndpoint'];
/** The error envelope (docs/partner-guide.md, "Responses and errors"). */
export type ErrorEnvelope = Schemas['Error'];
/** Every `error_code` the API documents. */
export type ErrorCode = Schemas['ErrorCode'];

/**
 * What the page iterators walk: `items` and the cursor of the next page (null on the last one). Every
 * generated `<Resource>Page` (VirtualAccountPage, EventPage, …) has this shape.
 */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
export type VirtualAccountPage = Schemas['VirtualAccountCountedPage'];
export type TransactionPage = Schemas['TransactionPage'];
export type EventPage = Schemas['EventPage'];
export type DeliveryAttemptPage = Schemas['DeliveryAttemptPage'];
export type ApiKeyPage = Schemas['ApiKeyPage'];
export type TeamMemberPage = Schemas['TeamMemberPage'];
export type TransferPage = Schemas['TransferPage'];

// Request bodies.
export type RegisterInput = RequestBody<'registerPartner'>;
export type VerifyOtpInput = RequestBody<'verifyPartnerOtp'>;
export type LoginInput = RequestBody<'loginPartner'>;
export type SecondFactorLoginInput = RequestBody<'loginPartnerSecondFactor'>;
export type ResetPasswordInput = RequestBody<'resetPartnerPassword'>;
export type UpdateProfileInput = RequestBody<'updateOnboardingProfile'>;
/** The representative's fields; the ID goes as a file (`saveRepresentative(fields, file)`) or `id_file_url`. */
export type RepresentativeInput = Omit<MultipartBody<'saveComplianceRepresentative'>, 'id_file'>;
export type DocumentType = MultipartBody<'uploadOnboardingDocument'>['document_type'];
export type CreateApiKeyInput = RequestBody<'createApiKey'>;
export type CreateTeamMemberInput = RequestBody<'createTeamMember'>;
export type UpdateTeamMemberInput = RequestBody<'updateTeamMember'>;
export type CreateVirtualAccountInput = RequestBody<'createVirtualAccount'>;
export type SimulateCreditInput = RequestBody<'simulateVirtualAccountCredit'>;
export type DeactivateInput = RequestBody<'deactivateVirtualAccount'>;
export type CloseInput = RequestBody<'closeVirtualAccount'>;
export type SetWebhookEndpointInput = RequestBody<'setWebhookEndpoint'>;
export type NameEnquiryInput = RequestBody<'nameEnquiry'>;
export type CreateTransferInput = RequestBody<'createTransfer'>;

// List filters (page size and filters; the iterators follow the cursor themselves).
export type VirtualAccountListOptions = ListOptions<'listVirtualAccounts'>;
export type TransactionListOptions = ListOptions<'listVirtualAccountTransactions'>;
export type EventListOptions = ListOptions<'listEvents'>;
export type DeliveryListOptions = ListOptions<'listWebhookDeliveries'>;
export type ApiKeyListOptions = ListOptions<'listApiKeys'>;
export type TeamListOptions = ListOptions<'listTeamMembers'>;
export type TransferListOptions = ListOptions<'listTransfers'>;
export type StatementPeriod = QueryOf<'getVirtualAccountStatement'>;

/** The payload of the webhook `Type` as delivered (the `webhooks` section of the OpenAPI document). */
type WebhookPayload<Type extends keyof webhooks> = webhooks[Type] extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/**
 * A verified webhook delivery: the union of every `<Type>Webhook` payload of the document, told
 * apart by `type` (e.g. `virtual_account.created` carries a VirtualAccount in `data`).
 */
export type WebhookEvent = { [Type in keyof webhooks]: WebhookPayload<Type> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];
/** The payload of one webhook type, e.g. `WebhookEventOf<'virtual_account.credited'>`. */
export type WebhookEventOf<Type extends WebhookEventType> = Extract<WebhookEvent, { type: Type }>;
