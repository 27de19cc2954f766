import {
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  sql,
  type Transaction,
  type Updateable,
} from 'kysely';
import type { SecondFactorPolicy, UserRole } from '../../platform/auth/roles.js';
import { containsText } from '../../platform/db/dialect.js';
import { fromJson, jsonHelpers } from '../../platform/db/json.js';
import { prepare } from '../../platform/db/prepared.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { extend } from '../../platform/objects.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
import type { PartnersTable } from '../partners/partners.table.js';
import type { DocumentStatus } from './onboarding.schemas.js';
import type { DocumentsTable, KycChecksTable, RepresentativesTable } from './onboarding.table.js';

export type RepresentativeRow = Selectable<RepresentativesTable>;
export type DocumentRow = Selectable<DocumentsTable>;
export type NewDocument = Insertable<DocumentsTable>;
export type NewRepresentative = Insertable<RepresentativesTable>;
export type KycCheckRow = Selectable<KycChecksTable>;

const PROFILE_COLUMNS = [
  'id',
  'email',
  'business_name',
  'legal_business_name',
  'phone',
  'business_type',
  'rc_number',
  'address',
  'website',
  'onboarding_status',
  'first_submitted_at',
  'review_notes',
  'verified_at',
  'created_at',
  'updated_at',
] as const;

const partnerProfile = prepare(
  (db, partnerId: number) => db.selectFrom('partners').select(PROFILE_COLUMNS).where('id', '=', partnerId),
  1,
);

export async function findPartnerProfile(db: Kysely<Database>, partnerId: number) {
  return (await partnerProfile(db, partnerId))[0];
}
export type PartnerProfileRow = NonNullable<Awaited<ReturnType<typeof findPartnerProfile>>>;

// SQLite's json_object needs every column named (no selectAll inside jsonObjectFrom / jsonArrayFrom).
const REPRESENTATIVE_COLUMNS = [
  'partner_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'dob',
  'gender',
  'designation',
  'id_type',
  'id_file_url',
  'id_document_id',
  'address',
  'bvn_encrypted',
  'bvn_hash',
  'bvn_last4',
  'kyc_status',
  'kyc_message',
  'kyc_provider',
  'kyc_checked_at',
  'bvn_verified_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof RepresentativesTable>;

const DOCUMENT_COLUMNS = [
  'id',
  'partner_id',
  'document_type',
  'status',
  'rejection_reason',
  'storage_key',
  'file_url',
  'content_type',
  'size_bytes',
  'sha256',
  'uploaded_at',
  'reviewed_at',
  'superseded_at',
  'file_deleted_at',
] as const satisfies ReadonlyArray<keyof DocumentsTable>;

/**
 * The representative and current documents of the partner row in scope, as JSON sub-selects, with
 * the columns given (every column for the whole record; fewer for a view that shows fewer).
 */
function recordParts(
  db: Kysely<Database>,
  eb: ExpressionBuilder<Database, 'partners'>,
  columns: {
    representative: ReadonlyArray<keyof RepresentativesTable>;
    documents: ReadonlyArray<keyof DocumentsTable>;
  } = { representative: REPRESENTATIVE_COLUMNS, documents: DOCUMENT_COLUMNS },
) {
  const { jsonArrayFrom, jsonObjectFrom } = jsonHelpers(db);
  return [
    jsonObjectFrom(
      eb
        .selectFrom('representatives')
        .select(columns.representative)
        .whereRef('representatives.partner_id', '=', 'partners.id'),
    ).as('representative'),
    jsonArrayFrom(
      eb
        .selectFrom('documents')
        .select(columns.documents)
        .whereRef('documents.partner_id', '=', 'partners.id')
        .where('documents.superseded_at', 'is', null)
        .orderBy('documents.uploaded_at')
        .orderBy('documents.id'),
    ).as('documents'),
  ] as const;
}

const onboardingRecord = prepare(
  (db, partnerId: number) =>
    db
      .selectFrom('partners')
      .select(PROFILE_COLUMNS)
      .select((eb) => recordParts(db, eb))
      .where('id', '=', partnerId),
  1,
);

// What the partner's own view (profileView) reads: GET business-info reads no more than this.
const VIEW_PARTNER_COLUMNS = [
  'partners.id',
  'partners.email',
  'partners.business_name',
  'partners.legal_business_name',
  'partners.phone',
  'partners.business_type',
  'partners.rc_number',
  'partners.address',
  'partners.website',
  'partners.onboarding_status',
  'partners.review_notes',
] as const;
const VIEW_REPRESENTATIVE_COLUMNS = [
  'first_name',
  'last_name',
  'email',
  'kyc_status',
  'kyc_message',
] as const satisfies ReadonlyArray<keyof RepresentativesTable>;
const VIEW_DOCUMENT_COLUMNS = [
  'id',
  'document_type',
  'status',
  'rejection_reason',
  'uploaded_at',
] as const satisfies ReadonlyArray<keyof DocumentsTable>;

/**
 * The session of a token and what its partner's own view shows, in one statement: the authenticated
 * profile read of GET business-info is one round trip on PostgreSQL, and reads only the columns the
 * view shows. (The one query of this module that reads the accounts module's sessions table: the hot
 * path is worth the exception.)
 */
const sessionProfileRecord = prepare(
  (db, tokenHash: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('partners', 'partners.id', 'sessions.partner_id')
      .innerJoin('partner_users', 'partner_users.id', 'sessions.user_id')
      .select(VIEW_PARTNER_COLUMNS)
      .select([
        'sessions.id as session_id',
        'sessions.environment as session_environment',
        'sessions.expires_at as session_expires_at',
        'sessions.second_factor as session_second_factor',
        'partners.second_factor_policy',
        'partner_users.id as user_id',
        'partner_users.name as user_name',
        'partner_users.role as user_role',
      ])
      .select((eb) =>
        recordParts(db, eb as unknown as ExpressionBuilder<Database, 'partners'>, {
          representative: VIEW_REPRESENTATIVE_COLUMNS,
          documents: VIEW_DOCUMENT_COLUMNS,
        }),
      )
      .where('sessions.token_hash', '=', tokenHash)
      .where('partner_users.removed_at', 'is', null),
  1,
);

export interface SessionRow {
  id: string;
  partner_id: number;
  environment: Environment;
  expires_at: number;
}

/** A session with what its credential carries of the partner. */
export interface SessionWithPartner extends SessionRow {
  onboarding_status: OnboardingStatus;
  business_name: string;
  user_id: string;
  user_name: string;
  user_role: UserRole;
  second_factor: number;
  second_factor_policy: SecondFactorPolicy;
}

const recordOf = ({
  representative,
  documents,
  ...partner
}: Awaited<ReturnType<typeof onboardingRecord>>[number]) => ({
  partner,
  representative: fromJson<RepresentativeRow | null>(representative) ?? undefined,
  documents: fromJson<DocumentRow[]>(documents),
});

type Unqualified<Column> = Column extends `${string}.${infer Name}` ? Name : never;

/** The rows profileView reads (a whole OnboardingRecord has them too). */
export interface ProfileRecord {
  partner: Pick<PartnerProfileRow, Unqualified<(typeof VIEW_PARTNER_COLUMNS)[number]>>;
  representative: Pick<RepresentativeRow, (typeof VIEW_REPRESENTATIVE_COLUMNS)[number]> | undefined;
  documents: Array<Pick<DocumentRow, (typeof VIEW_DOCUMENT_COLUMNS)[number]>>;
}

/** The session of a token hash and what its partner's view shows; undefined for an unknown token. */
export async function findProfileRecordBySession(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<{ session: SessionWithPartner; record: ProfileRecord } | undefined> {
  const [row] = await sessionProfileRecord(db, tokenHash);
  if (!row) return undefined;
  return {
    session: {
      id: row.session_id,
      partner_id: row.id,
      environment: row.session_environment,
      expires_at: row.session_expires_at,
      onboarding_status: row.onboarding_status,
      business_name: row.business_name,
      user_id: row.user_id,
      user_name: row.user_name,
      user_role: row.user_role,
      second_factor: row.session_second_factor,
      second_factor_policy: row.second_factor_policy,
    },
    record: {
      // The row itself (its other columns unread): copying its partner columns out of it, by an
      // object rest, cost more than the rest of this function.
      partner: row,
      representative: fromJson<ProfileRecord['representative'] | null>(row.representative) ?? undefined,
      documents: fromJson<ProfileRecord['documents']>(row.documents),
    },
  };
}

/**
 * A partner's onboarding (profile, representative, current documents) in one statement: one round
 * trip on PostgreSQL for the most read resource.
 */
export async function findOnboardingRecord(db: Kysely<Database>, partnerId: number) {
  const [row] = await onboardingRecord(db, partnerId);
  return row ? recordOf(row) : undefined;
}

/** What only operators see of a partner: the latest decision's internal note, who works on it. */
export interface OperatorFields {
  internal_note: string | null;
  assigned_operator_id: string | null;
  assigned_operator_name: string | null;
  assigned_at: number | null;
}

const operatorFieldsQuery = (db: Kysely<Database>) =>
  db
    .selectFrom('partners')
    .leftJoin('operators', 'operators.id', 'partners.assigned_operator_id')
    .select([
      'partners.internal_note',
      'partners.assigned_operator_id',
      'operators.name as assigned_operator_name',
      'partners.assigned_at',
    ]);

/** The operators-only fields of a partner (never read on a partner's path); undefined when unknown. */
export function findOperatorFields(
  db: Kysely<Database>,
  partnerId: number,
): Promise<OperatorFields | undefined> {
  return operatorFieldsQuery(db).where('partners.id', '=', partnerId).executeTakeFirst();
}

/** The same for a page of partners, by id. */
export async function operatorFieldsOf(
  db: Kysely<Database>,
  partnerIds: number[],
): Promise<Map<number, OperatorFields>> {
  if (partnerIds.length === 0) return new Map();
  const rows = await operatorFieldsQuery(db)
    .select('partners.id')
    .where('partners.id', 'in', partnerIds)
    .execute();
  return new Map(rows.map(({ id, ...fields }) => [id, fields]));
}

/**
 * Assigns a partner to an operator (null: to nobody) in one conditional statement: with `onlyIf`,
 * only while it is assigned to nobody or to `onlyIf` (a reviewer claiming, or letting go of, its own);
 * false when the partner is unknown or the condition failed.
 */
export async function assignPartner(
  db: Kysely<Database>,
  partnerId: number,
  operatorId: string | null,
  now: number,
  onlyIf?: string,
): Promise<boolean> {
  let query = db
    .updateTable('partners')
    .set({ assigned_operator_id: operatorId, assigned_at: operatorId === null ? null : now })
    .where('id', '=', partnerId);
  if (onlyIf !== undefined) {
    query = query.where((eb) =>
      eb.or([eb('assigned_operator_id', 'is', null), eb('assigned_operator_id', '=', onlyIf)]),
    );
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Takes the partner row's lock for the rest of the transaction (PostgreSQL; SQLite has one writer). */
export async function lockPartner(trx: Transaction<Database>, partnerId: number): Promise<void> {
  await trx
    .updateTable('partners')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', partnerId)
    .execute();
}

/**
 * Writes profile fields only while onboarding_status is one of `allowed` (and, with
 * `neverSubmitted`, only while the application was never submitted): the check and the write are
 * one statement, so a submission racing the update either sees the change or refuses it.
 */
export async function updatePartnerProfile(
  db: Kysely<Database>,
  partnerId: number,
  changes: Pick<
    Updateable<PartnersTable>,
    'business_name' | 'phone' | 'legal_business_name' | 'business_type' | 'rc_number' | 'address' | 'website'
  >,
  allowed: { statuses: readonly OnboardingStatus[]; neverSubmitted: boolean },
  now: number,
): Promise<boolean> {
  let query = db
    .updateTable('partners')
    .set(extend(changes, { updated_at: now }))
    .where('id', '=', partnerId)
    .where('onboarding_status', 'in', [...allowed.statuses]);
  if (allowed.neverSubmitted) query = query.where('first_submitted_at', 'is', null);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Notes the first submission; later ones keep it. */
export async function markSubmitted(
  trx: Transaction<Database>,
  partnerId: number,
  now: number,
): Promise<void> {
  await trx
    .updateTable('partners')
    .set({ first_submitted_at: now })
    .where('id', '=', partnerId)
    .where('first_submitted_at', 'is', null)
    .execute();
}

/** Moves onboarding_status only from one of `from`: a racing transition finds nothing to update. */
export async function transitionOnboardingStatus(
  db: Kysely<Database>,
  partnerId: number,
  change: {
    from: readonly OnboardingStatus[];
    to: OnboardingStatus;
    reviewNotes: string | null;
    internalNote?: string | null;
  },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('partners')
    .set({
      onboarding_status: change.to,
      review_notes: change.reviewNotes,
      ...(change.internalNote !== undefined ? { internal_note: change.internalNote } : {}),
      updated_at: now,
    })
    .where('id', '=', partnerId)
    .where('onboarding_status', 'in', [...change.from])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

const representative = prepare(
  (db, partnerId: number) => db.selectFrom('representatives').selectAll().where('partner_id', '=', partnerId),
  1,
);

export async function findRepresentative(
  db: Kysely<Database>,
  partnerId: number,
): Promise<RepresentativeRow | undefined> {
  return (await representative(db, partnerId))[0];
}

export async function upsertRepresentative(db: Kysely<Database>, row: NewRepresentative): Promise<void> {
  const { partner_id: _partnerId, created_at: _createdAt, ...changes } = row;
  await db
    .insertInto('representatives')
    .values(row)
    .onConflict((conflict) => conflict.column('partner_id').doUpdateSet(changes))
    .execute();
}

export async function insertKycCheck(db: Kysely<Database>, row: Insertable<KycChecksTable>): Promise<void> {
  await db.insertInto('kyc_checks').values(row).execute();
}

export function listKycChecks(db: Kysely<Database>, partnerId: number): Promise<KycCheckRow[]> {
  return db
    .selectFrom('kyc_checks')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
}

export function listAllDocuments(db: Kysely<Database>, partnerId: number): Promise<DocumentRow[]> {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('uploaded_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function findDocument(db: Kysely<Database>, partnerId: number, documentId: string) {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', documentId)
    .executeTakeFirst();
}

/** A stored file that its document gave up, to be removed once that change has committed. */
export interface ReleasedFile {
  id: string;
  storage_key: string;
}

/**
 * The new document becomes the current one of its type; the previous one is kept, superseded at
 * the new one's upload time. If no operator decided it, it gives up its stored file in the same
 * statement, which returns that file for removal after the commit (decided documents keep theirs).
 * Called under the partner's lock, so no decision lands between the two statements.
 */
export async function replaceCurrentDocument(
  trx: Transaction<Database>,
  row: NewDocument,
): Promise<ReleasedFile[]> {
  const superseded = await trx
    .updateTable('documents')
    .set((eb) => ({
      superseded_at: row.uploaded_at,
      file_deleted_at: eb
        .case()
        .when(eb.and([eb('status', '=', 'pending_review'), eb('storage_key', 'is not', null)]))
        .then(eb.cast<number>(eb.val(row.uploaded_at), 'bigint'))
        .else(null)
        .end(),
    }))
    .where('partner_id', '=', row.partner_id)
    .where('document_type', '=', row.document_type)
    .where('superseded_at', 'is', null)
    .returning(['id', 'storage_key', 'file_deleted_at'])
    .execute();
  await trx.insertInto('documents').values(row).execute();
  return superseded.flatMap(({ id, storage_key, file_deleted_at }) =>
    file_deleted_at !== null && storage_key !== null ? [{ id, storage_key }] : [],
  );
}

/** Files given up whose removal has not been recorded yet (a crash or a failed delete after the commit). */
export function releasedFiles(db: Kysely<Database>, limit: number): Promise<ReleasedFile[]> {
  return db
    .selectFrom('documents')
    .select(['id', 'storage_key'])
    .where('file_deleted_at', 'is not', null)
    .where('storage_key', 'is not', null)
    .$narrowType<{ storage_key: string }>()
    .limit(limit)
    .execute();
}

/** Records that the released files of these documents are gone: their rows name no file any more. */
export async function forgetReleasedFiles(
  db: Kysely<Database>,
  documentIds: readonly string[],
): Promise<void> {
  if (documentIds.length === 0) return;
  await db
    .updateTable('documents')
    .set({ storage_key: null })
    .where('id', 'in', [...documentIds])
    .where('file_deleted_at', 'is not', null)
    .execute();
}

/** Decides a current document that is pending review; undefined when it is not (any more). */
export function decideDocument(
  db: Kysely<Database>,
  partnerId: number,
  documentId: string,
  decision: { status: Exclude<DocumentStatus, 'pending_review'>; reason: string | null },
  now: number,
): Promise<DocumentRow | undefined> {
  return db
    .updateTable('documents')
    .set({ status: decision.status, rejection_reason: decision.reason, reviewed_at: now })
    .where('partner_id', '=', partnerId)
    .where('id', '=', documentId)
    .where('status', '=', 'pending_review')
    .where('superseded_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** The statuses in which an approved partner's later changes await the operator. */
const POST_APPROVAL_STATUSES: readonly OnboardingStatus[] = ['active', 'suspended'];

/**
 * Keyset page of partners for the review queue, oldest first. `pendingReview`: whether something
 * awaits the operator's decision: an application under review, or a change an approved partner made
 * afterwards (a current document pending review, a new representative's ID among them).
 */
export function listPartners(
  db: Kysely<Database>,
  filter: {
    onboardingStatus?: OnboardingStatus;
    pendingReview?: boolean;
    /** An operator's id, or null for partners assigned to nobody. */
    assignedTo?: string | null;
    /** Lower-cased text in the business name, legal name or e-mail. */
    search?: string;
    afterId?: number;
    limit: number;
  },
) {
  let query = db
    .selectFrom('partners')
    .select(PROFILE_COLUMNS)
    .orderBy('id')
    .limit(filter.limit + 1);
  const search = filter.search;
  if (search !== undefined) {
    query = query.where((eb) =>
      eb.or([
        containsText(db, sql`lower(business_name)`, search),
        containsText(db, sql`lower(legal_business_name)`, search),
        containsText(db, sql.ref('email'), search),
      ]),
    );
  }
  if (filter.onboardingStatus) query = query.where('onboarding_status', '=', filter.onboardingStatus);
  if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
  if (filter.assignedTo !== undefined) {
    query =
      filter.assignedTo === null
        ? query.where('assigned_operator_id', 'is', null)
        : query.where('assigned_operator_id', '=', filter.assignedTo);
  }
  if (filter.pendingReview !== undefined) {
    query = query.where((eb) => {
      const pending = eb.or([
        eb('onboarding_status', '=', 'under_review'),
        eb.and([
          eb('onboarding_status', 'in', [...POST_APPROVAL_STATUSES]),
          eb.exists(
            eb
              .selectFrom('documents')
              .select('documents.id')
              .whereRef('documents.partner_id', '=', 'partners.id')
              .where('documents.superseded_at', 'is', null)
              .where('documents.status', '=', 'pending_review'),
          ),
        ]),
      ]);
      return filter.pendingReview ? pending : eb.not(pending);
    });
  }
  return query.execute();
}

export interface PendingDocuments {
  types: string[];
  /** When the oldest of them was uploaded. */
  oldestAt: number;
}

/** The current documents pending review of each of the partners, by type, and since when. */
export async function pendingDocuments(
  db: Kysely<Database>,
  partnerIds: readonly number[],
): Promise<Map<number, PendingDocuments>> {
  const pending = new Map<number, PendingDocuments>();
  if (partnerIds.length === 0) return pending;
  const rows = await db
    .selectFrom('documents')
    .select(['partner_id', 'document_type', 'uploaded_at'])
    .where('partner_id', 'in', [...partnerIds])
    .where('superseded_at', 'is', null)
    .where('status', '=', 'pending_review')
    .orderBy('document_type')
    .execute();
  for (const row of rows) {
    const seen = pending.get(row.partner_id);
    pending.set(row.partner_id, {
      types: [...(seen?.types ?? []), row.document_type],
      oldestAt: Math.min(seen?.oldestAt ?? row.uploaded_at, row.uploaded_at),
    });
  }
  return pending;
}
