import { type Static, Type } from '@sinclair/typebox';
import {
  BusinessName,
  Email,
  Environment,
  FreeText,
  Nullable,
  Phone,
  StoredPhone,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';
import { BUSINESS_TYPES, ONBOARDING_STATUSES } from '../partners/partners.schemas.js';
import { PersonFields } from '../people/people.schemas.js';

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
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export const KYC_OUTCOMES = ['passed', 'failed', 'error'] as const;

export const ProfileDocument = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    document_type: StringEnum(DOCUMENT_TYPES),
    status: StringEnum(DOCUMENT_STATUSES),
    rejection_reason: Type.Optional(Nullable(Type.String())),
    uploaded_at: Timestamp(),
  },
  { title: 'Document' },
);

export const Profile = Type.Object(
  {
    company_id: Type.Integer({ examples: [42] }),
    business_name: Type.String({ examples: ['Acme Payments Ltd'] }),
    legal_business_name: Type.String({ examples: ['Acme Payments Limited'] }),
    business_type: Nullable(StringEnum(BUSINESS_TYPES)),
    rc_number: Nullable(Type.String({ examples: ['RC1234567'] })),
    address: Nullable(Type.String()),
    website: Nullable(Type.String()),
    email: Type.String({ format: 'email' }),
    phone: StoredPhone(),
    onboarding_status: StringEnum(ONBOARDING_STATUSES),
    environment: Environment,
    representative: Nullable(
      Type.Object(
        { first_name: Type.String(), last_name: Type.String(), email: Email() },
        { title: 'RepresentativeSummary' },
      ),
    ),
    documents: Type.Array(ProfileDocument, {
      description: 'Current (not superseded) document of each type.',
    }),
    document_checklist: Type.Record(Type.String(), StringEnum(['uploaded', 'missing']), {
      description:
        'Document type required for the business_type → uploaded | missing. Empty until business_type is set.',
      examples: [{ cac_certificate: 'uploaded', memart: 'missing', valid_id: 'uploaded' }],
    }),
    review_notes: Nullable(Type.String({ description: 'Why the operator requested changes or rejected.' })),
    requirements: Type.Object(
      {
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
      },
      { title: 'Requirements' },
    ),
  },
  { title: 'OnboardingProfile' },
);

export const ProfileResponse = Success(Profile, 'Onboarding profile.');

export const UpdateProfileBody = Type.Object(
  {
    business_name: Type.Optional(
      BusinessName({
        description:
          'As at registration (names every new virtual account). Only until the application is first submitted: ' +
          'afterwards 409 ONBOARDING_LOCKED, also when the operator sends it back for changes.',
      }),
    ),
    phone: Type.Optional(
      Phone({
        description: 'As at registration. Only until the application is first submitted (as business_name).',
      }),
    ),
    legal_business_name: Type.Optional(Type.String({ maxLength: 191, examples: ['Acme Payments Limited'] })),
    business_type: Type.Optional(
      StringEnum(BUSINESS_TYPES, { description: 'Decides the document checklist.' }),
    ),
    rc_number: Type.Optional(
      Type.String({
        pattern: '^(RC|BN|IT)[0-9]{1,8}$',
        errorMessage: 'must be RC, BN or IT followed by 1-8 digits',
        examples: ['RC1234567'],
      }),
    ),
    address: Type.Optional(FreeText({ maxLength: 255, examples: ['12 Marina, Lagos'] })),
    website: Type.Optional(
      Type.String({ format: 'https-url', maxLength: 2048, examples: ['https://acme.ng'] }),
    ),
  },
  {
    minProperties: 1,
    errorMessage: 'send at least one field to change',
    examples: [
      {
        legal_business_name: 'Acme Payments Limited',
        business_type: 'limited_liability',
        rc_number: 'RC1234567',
      },
    ],
  },
);
export type UpdateProfileBody = Static<typeof UpdateProfileBody>;

const FileField = (description: string) =>
  Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description });
const FileUrl = (description: string) =>
  Type.String({
    format: 'https-url',
    maxLength: 2048,
    description,
    examples: ['https://files.acme.ng/id.pdf'],
  });

export const RepresentativeBody = Type.Object({
  ...PersonFields,
  id_file: Type.Optional(FileField('The ID document: PDF, JPEG or PNG (decided by content), at most 5 MiB.')),
  id_file_url: Type.Optional(FileUrl('https URL of an already hosted ID document; stored, never fetched.')),
});
export type RepresentativeBody = Static<typeof RepresentativeBody>;

export const RepresentativeResponse = Success(
  Type.Object(
    {
      representative: Type.Object({ first_name: Type.String(), last_name: Type.String() }),
      kyc: Type.Object(
        {
          ok: Type.Boolean({ description: 'Whether the identity check passed.' }),
          message: Type.String({ examples: ['BVN verified.'] }),
        },
        { title: 'KycResult' },
      ),
    },
    { title: 'RepresentativeResult' },
  ),
  'Representative saved.',
);

export const DocumentBody = Type.Object({
  document_type: StringEnum(DOCUMENT_TYPES),
  file: Type.Optional(FileField('PDF, JPEG or PNG (decided by content), at most 5 MiB.')),
  file_url: Type.Optional(FileUrl('https URL of an already hosted document; stored, never fetched.')),
});
export type DocumentBody = Static<typeof DocumentBody>;

export const DocumentResponse = Success(
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      document_type: StringEnum(DOCUMENT_TYPES),
      status: Type.Literal('pending_review'),
      uploaded_at: Timestamp(),
    },
    { title: 'UploadedDocument' },
  ),
  'Document uploaded.',
);

export const DocumentFileParams = Type.Object({
  document_id: Type.String({
    format: 'uuid',
    description: "The document's id, from the profile's `documents`.",
  }),
});
export type DocumentFileParams = Static<typeof DocumentFileParams>;

export const EnvironmentBody = Type.Object(
  { environment: Environment },
  { examples: [{ environment: 'live' }] },
);
export type EnvironmentBody = Static<typeof EnvironmentBody>;
export const EnvironmentResponse = Success(
  Type.Object({ environment: Environment }, { title: 'EnvironmentSetting' }),
  'Environment switched.',
);
