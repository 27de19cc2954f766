import { type Static, Type } from '@sinclair/typebox';
import { ACTOR_TYPES } from '../../platform/audit/audit.table.js';
import {
  CreatedRange,
  FreeText,
  Nullable,
  Page,
  PaginationQuery,
  StoredPhone,
  StringEnum,
  Success,
  Timestamp,
} from '../../platform/http/schemas.js';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES, Profile } from '../onboarding/onboarding.schemas.js';
import { PROPOSAL_ACTIONS, PROPOSAL_STATUSES } from '../onboarding/onboarding.table.js';
import { BUSINESS_TYPES, ONBOARDING_STATUSES } from '../partners/partners.schemas.js';

export const PartnerParams = Type.Object({
  company_id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The partner account id.' }),
});
export type PartnerParams = Static<typeof PartnerParams>;

export const DocumentParams = Type.Object({
  company_id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  document_id: Type.String({ format: 'uuid' }),
});
export type DocumentParams = Static<typeof DocumentParams>;

export const ReasonBody = Type.Object(
  {
    reason: FreeText({
      maxLength: 1000,
      description: 'Shown to the partner in review_notes / requirements.',
    }),
  },
  { examples: [{ reason: 'The CAC certificate is illegible; upload a clearer scan.' }] },
);
export type ReasonBody = Static<typeof ReasonBody>;

/** A decision on an application or a partner: the reason the partner sees, and a note it never does. */
export const DecisionBody = Type.Object(
  {
    ...ReasonBody.properties,
    internal_note: Type.Optional(
      FreeText({
        maxLength: 2000,
        description:
          'For operators only: kept on the partner record (internal_note) and in the audit trail, never shown to the partner, in its API, dashboard, e-mails or webhooks. Use it for what the partner must not be told (a suspension for suspicious activity: no tipping-off); the reason is what the partner sees.',
      }),
    ),
  },
  {
    examples: [
      {
        reason: 'Your account is under review; our compliance team will contact you.',
        internal_note: 'STR filed 2026-11-27 after unusual inbound volume; do not disclose.',
      },
    ],
  },
);
export type DecisionBody = Static<typeof DecisionBody>;

/** Who works on a partner's review (docs/operator-guide.md, "Assignment"). */
const Assignment = {
  assigned_to: Nullable(
    Type.Object(
      { id: Type.String({ format: 'uuid' }), name: Type.String() },
      { title: 'Assignee', description: 'The operator working on this partner; null: nobody.' },
    ),
  ),
  assigned_at: Nullable(Timestamp('When the current assignee got it.')),
};

const ProposalActor = (description: string) =>
  Type.Object(
    {
      type: StringEnum(['operator', 'api_key'], {
        description: 'operator: a person signed in to the console; api_key: ADMIN_API_KEY.',
      }),
      id: Nullable(Type.String({ format: 'uuid', description: "The operator's id; null for the API key." })),
      name: Nullable(Type.String({ description: "The operator's name; null for the API key." })),
    },
    { description },
  );

/** A decision one admin proposed and another confirms (docs/operator-guide.md, "Four eyes"). */
export const Proposal = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    action: StringEnum(PROPOSAL_ACTIONS, { description: 'The decision proposed.' }),
    company_id: Type.Integer({ description: 'The partner it is about.' }),
    business_name: Type.String(),
    status: StringEnum(PROPOSAL_STATUSES, {
      description:
        "pending: awaits another admin; confirmed: the decision was made; declined: another admin refused it; withdrawn: its proposer took it back; void: the partner's onboarding_status changed first.",
    }),
    reason: Nullable(
      Type.String({ description: 'The reason the partner will read (a suspension); null for the others.' }),
    ),
    internal_note: Nullable(Type.String({ description: 'Operators only, as on the decision itself.' })),
    proposed_by: ProposalActor('Who proposed it.'),
    created_at: Timestamp(),
    settled_by: Nullable(
      ProposalActor('Who confirmed, declined or withdrew it; null while pending and when void.'),
    ),
    settled_at: Nullable(Timestamp('When it stopped being pending.')),
    decline_reason: Nullable(Type.String({ description: 'Why another admin declined it, if they said.' })),
  },
  { title: 'DecisionProposal' },
);

const PendingProposal = {
  pending_proposal: Nullable(
    Type.Object(Proposal.properties, {
      title: 'PendingProposal',
      description:
        'The decision proposed for this partner and awaiting another admin (four eyes); null: none.',
    }),
  ),
};

export const ProposalResponse = Success(Proposal, 'The proposal.');

export const ProposalAccepted = Success(
  Proposal,
  'Four eyes (REQUIRE_FOUR_EYES): the decision is proposed, not made; another admin confirms it.',
);

export const ProposalParams = Type.Object({ proposal_id: Type.String({ format: 'uuid' }) });
export type ProposalParams = Static<typeof ProposalParams>;

export const ProposalListQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(StringEnum(PROPOSAL_STATUSES)),
  company_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
});
export type ProposalListQuery = Static<typeof ProposalListQuery>;

export const ProposalListResponse = Success(Page(Proposal), 'Proposals, newest first.');

export const DeclineBody = Type.Object({
  reason: Type.Optional(
    FreeText({ maxLength: 1000, description: 'Why, for the proposer and the audit trail (operators only).' }),
  ),
});
export type DeclineBody = Static<typeof DeclineBody>;

export const AssignmentBody = Type.Object({
  operator_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        'The operator to assign (an admin only; any active operator). Left out: the calling operator claims the partner.',
    }),
  ),
});
export type AssignmentBody = Static<typeof AssignmentBody>;

export const AssignmentResponse = Success(
  Type.Object(Assignment, { title: 'PartnerAssignment' }),
  'Who works on the partner now.',
);

export const PartnerListQuery = Type.Object({
  ...PaginationQuery.properties,
  assigned_to: Type.Optional(
    Type.String({
      pattern: '^(me|none|[0-9a-fA-F-]{36})$',
      description:
        '`me`: the partners the calling operator works on; `none`: those nobody does; an operator id: theirs.',
    }),
  ),
  onboarding_status: Type.Optional(StringEnum(ONBOARDING_STATUSES)),
  pending_review: Type.Optional(
    Type.Boolean({
      description:
        'true: only partners with something awaiting the operator (an application under review, or a change an approved partner made); false: only the others.',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Only partners whose business name, legal business name or e-mail contains this text (case-insensitive), e.g. `acme`.',
    }),
  ),
});
export type PartnerListQuery = Static<typeof PartnerListQuery>;

const PartnerSummary = Type.Object(
  {
    company_id: Type.Integer(),
    business_name: Type.String(),
    legal_business_name: Type.String(),
    email: Type.String({ format: 'email' }),
    business_type: Nullable(StringEnum(BUSINESS_TYPES)),
    onboarding_status: StringEnum(ONBOARDING_STATUSES),
    waiting_since: Nullable(
      Timestamp(
        'Since when something awaits the operator: the submission, or the oldest document awaiting review.',
      ),
    ),
    pending_review: Type.Array(Type.String(), {
      description:
        "What awaits the operator, as in the partner's requirements.pending_review: `application`, `documents.<type>`.",
      examples: [['documents.memart']],
    }),
    ...Assignment,
    ...PendingProposal,
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'PartnerSummary' },
);

export const PartnerListResponse = Success(Page(PartnerSummary), 'Partners.');

const AdminDocument = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    document_type: StringEnum(DOCUMENT_TYPES),
    status: StringEnum(DOCUMENT_STATUSES),
    rejection_reason: Nullable(Type.String()),
    source: StringEnum(['upload', 'url']),
    file_url: Nullable(Type.String({ description: 'Partner-hosted URL (never fetched by the service).' })),
    content_type: Nullable(Type.String({ description: 'Detected from the bytes.' })),
    size_bytes: Nullable(Type.Integer()),
    uploaded_at: Timestamp(),
    reviewed_at: Nullable(Timestamp()),
    current: Type.Boolean({ description: 'false once a newer upload of the type superseded it.' }),
    file_deleted_at: Nullable(
      Timestamp(
        'When the stored file was deleted: a newer upload of the type superseded this one before any operator decided it (decided uploads keep their files). The record stays; the file answers 404. Null otherwise.',
      ),
    ),
  },
  { title: 'PartnerDocument' },
);

export const PartnerRecord = Type.Object(
  {
    company_id: Type.Integer(),
    business_name: Type.String(),
    legal_business_name: Type.String(),
    business_type: Nullable(StringEnum(BUSINESS_TYPES)),
    rc_number: Nullable(Type.String()),
    address: Nullable(Type.String()),
    website: Nullable(Type.String()),
    email: Type.String({ format: 'email' }),
    phone: StoredPhone(),
    verified: Type.Boolean({ description: 'E-mail verified.' }),
    onboarding_status: StringEnum(ONBOARDING_STATUSES),
    review_notes: Nullable(
      Type.String({ description: 'The reason of the latest decision, as the partner sees it.' }),
    ),
    internal_note: Nullable(
      Type.String({
        description:
          'The internal note of the latest operator decision (request changes, reject, suspend); null when it had none. Operators only: the partner never sees it. Every earlier note is in the audit trail (onboarding.status_changed, metadata.internal_note).',
      }),
    ),
    ...Assignment,
    ...PendingProposal,
    created_at: Timestamp(),
    representative: Nullable(
      Type.Object(
        {
          first_name: Type.String(),
          last_name: Type.String(),
          email: Type.String({ format: 'email' }),
          phone: StoredPhone(),
          dob: Type.String({ format: 'date' }),
          gender: Type.String(),
          designation: Type.String(),
          id_type: Type.String(),
          id_document_id: Nullable(Type.String()),
          address: Type.String(),
          bvn: Type.String({ description: 'Masked: *******1234.', examples: ['*******6789'] }),
          bvn_locked: Type.Boolean({ description: 'A KYC check passed: the BVN can no longer change.' }),
          kyc: Type.Object(
            {
              status: StringEnum(['passed', 'failed', 'error']),
              message: Type.String(),
              provider: Type.String(),
              checked_at: Timestamp(),
            },
            { title: 'KycCheckResult' },
          ),
        },
        { title: 'PartnerRepresentative' },
      ),
    ),
    documents: Type.Array(AdminDocument, {
      description:
        'Every upload, newest first, superseded ones included (those no operator decided without their file: file_deleted_at).',
    }),
    kyc_checks: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          provider: Type.String(),
          outcome: StringEnum(['passed', 'failed', 'error']),
          reason: Type.String(),
          message: Type.String(),
          bvn: Type.String({ description: 'Masked.' }),
          created_at: Timestamp(),
        },
        { title: 'KycCheck' },
      ),
    ),
    document_checklist: Profile.properties.document_checklist,
    requirements: Profile.properties.requirements,
  },
  { title: 'PartnerRecord' },
);

export const PartnerRecordResponse = Success(PartnerRecord, 'Partner record.');

export const ReviewedDocumentResponse = Success(
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      document_type: StringEnum(DOCUMENT_TYPES),
      status: StringEnum(DOCUMENT_STATUSES),
      rejection_reason: Nullable(Type.String()),
      reviewed_at: Timestamp(),
    },
    { title: 'ReviewedDocument' },
  ),
  'Document reviewed.',
);

export const AuditQuery = Type.Object({
  ...PaginationQuery.properties,
  company_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  action: Type.Optional(
    Type.String({ maxLength: 100, description: 'Only this action, e.g. onboarding.status_changed.' }),
  ),
  actor_type: Type.Optional(StringEnum(ACTOR_TYPES)),
  actor_id: Type.Optional(
    Type.String({ maxLength: 100, description: 'Only this actor, e.g. an operator id.' }),
  ),
  company: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Only events of partners whose business name or e-mail contains this text (case-insensitive), e.g. `acme`.',
    }),
  ),
  operator: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Only actions of operators whose name or e-mail contains this text (case-insensitive), e.g. `ada`.',
    }),
  ),
  ...CreatedRange,
});
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditEventsResponse = Success(
  Page(
    Type.Object(
      {
        id: Type.String(),
        company_id: Nullable(Type.Integer()),
        company_name: Nullable(
          Type.String({ description: "The partner's business name; null for events of no partner." }),
        ),
        actor: Type.Object({
          type: StringEnum(ACTOR_TYPES, {
            description:
              "operator: a person signed in to the console (id, email); api_key: ADMIN_API_KEY; user: a partner's dashboard user (id: the user's id); partner: the partner itself (registration, verification) or one of its API keys (id api_key:<key id>).",
          }),
          id: Nullable(Type.String()),
          name: Nullable(
            Type.String({
              description:
                "An operator's name, a dashboard user's name (removed users too), or the partner's business name for a partner actor; null otherwise.",
            }),
          ),
          email: Nullable(
            Type.String({
              description: 'The e-mail of an operator or a dashboard user; null for other actors.',
            }),
          ),
        }),
        action: Type.String({ examples: ['onboarding.status_changed'] }),
        target: Nullable(Type.Object({ type: Type.String(), id: Nullable(Type.String()) })),
        metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
        request_id: Nullable(Type.String()),
        ip: Nullable(Type.String()),
        created_at: Timestamp(),
      },
      { title: 'AuditEvent' },
    ),
  ),
  'Audit events.',
);
