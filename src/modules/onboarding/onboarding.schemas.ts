import { Type } from '@sinclair/typebox';
import { Email, Environment, Nullable, StringEnum, Success, Timestamp } from '../../platform/http/schemas.js';

export const BUSINESS_TYPES = [
  'limited_liability',
  'public_limited',
  'sole_proprietorship',
  'partnership',
  'incorporated_trustees',
] as const;
export type BusinessType = (typeof BUSINESS_TYPES)[number];

export const ONBOARDING_STATUSES = ['in_progress', 'under_review', 'active', 'rejected'] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];

export const DOCUMENT_TYPES = [
  'cac_certificate',
  'memart',
  'cac_status_report',
  'board_resolution',
  'valid_id',
  'proof_of_address',
  'constitution',
  'scuml_certificate',
  'tin_certificate',
  'other',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const DOCUMENT_STATUSES = ['pending_review', 'approved', 'rejected'] as const;

export const ProfileDocument = Type.Object({
  id: Type.String({ format: 'uuid' }),
  document_type: StringEnum(DOCUMENT_TYPES),
  status: StringEnum(DOCUMENT_STATUSES),
  rejection_reason: Type.Optional(Nullable(Type.String())),
  uploaded_at: Timestamp(),
});

export const Profile = Type.Object({
  company_id: Type.Integer({ examples: [42] }),
  business_name: Type.String({ examples: ['Acme Payments Ltd'] }),
  legal_business_name: Type.String({ examples: ['Acme Payments Limited'] }),
  business_type: Nullable(StringEnum(BUSINESS_TYPES)),
  rc_number: Nullable(Type.String({ examples: ['RC1234567'] })),
  address: Nullable(Type.String()),
  website: Nullable(Type.String()),
  email: Type.String({ format: 'email' }),
  phone: Type.String(),
  onboarding_status: StringEnum(ONBOARDING_STATUSES),
  environment: Environment,
  representative: Nullable(
    Type.Object({ first_name: Type.String(), last_name: Type.String(), email: Email() }),
  ),
  documents: Type.Array(ProfileDocument, { description: 'Current (not superseded) document of each type.' }),
  document_checklist: Type.Record(Type.String(), StringEnum(['uploaded', 'missing']), {
    description:
      'Document type required for the business_type → uploaded | missing. Empty until business_type is set.',
    examples: [{ cac_certificate: 'uploaded', memart: 'missing', valid_id: 'uploaded' }],
  }),
  review_notes: Nullable(Type.String({ description: 'Why the operator requested changes or rejected.' })),
  requirements: Type.Object({
    currently_due: Type.Array(Type.String(), {
      description:
        'What the partner must still do, e.g. business_type, representative.kyc, documents.memart, submit.',
    }),
    pending_review: Type.Array(Type.String(), {
      description: 'What awaits the operator, e.g. documents.memart, application.',
    }),
    errors: Type.Array(Type.Object({ requirement: Type.String(), reason: Type.String() }), {
      description: 'Why something was rejected or failed.',
    }),
  }),
});

export const ProfileResponse = Success(Profile, 'Onboarding profile.');
