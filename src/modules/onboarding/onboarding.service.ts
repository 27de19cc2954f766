import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  type AuditEntry,
  insertAuditEvent,
  type RequestMeta,
} from '../../platform/audit/audit.repository.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { bvnHash, maskBvn, sealBvn } from '../../platform/crypto/bvn.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import { enqueueEvent } from '../../platform/events/outbox.repository.js';
import type { SessionCredential } from '../../platform/http/auth.js';
import { keysetCursor } from '../../platform/http/cursor.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import { ENVIRONMENTS, type Environment } from '../../platform/http/schemas.js';
import { detectFileType } from '../../platform/storage/file-type.js';
import type { FileStorage } from '../../platform/storage/storage.js';
import type { KycProvider, KycResult } from '../kyc/kyc.js';
import * as repo from './onboarding.repository.js';
import type {
  BusinessType,
  DocumentBody,
  DocumentType,
  OnboardingStatus,
  RepresentativeBody,
  UpdateProfileBody,
} from './onboarding.schemas.js';
import {
  approvalGaps,
  checklistOf,
  type OnboardingState,
  requirementsOf,
  submissionGaps,
} from './requirements.js';

const LOCKED_STATUSES: readonly string[] = ['under_review', 'rejected'];

export interface OnboardingDeps {
  db: Kysely<Database>;
  clock: Clock;
  keys: KeyRing;
  storage: FileStorage;
  kyc: KycProvider;
  log: Logger;
  /** Provided by the accounts module, which owns sessions. */
  setSessionEnvironment(db: Kysely<Database>, sessionId: string, environment: Environment): Promise<void>;
}

export interface Actor {
  type: 'partner' | 'admin';
  id: string | number;
}

/** An uploaded file or a partner-hosted URL, already checked. */
type FileSource = { kind: 'upload'; bytes: Buffer; contentType: string } | { kind: 'url'; url: string };

/**
 * Age limits of CONTRACT 3.3 on a real date (YYYY-MM-DD) in the past, in completed calendar years on
 * today's UTC date: the 18th birthday is the first day a person is 18.
 */
export function dobProblem(dob: string, now: number): string | undefined {
  const today = new Date(now).toISOString().slice(0, 10);
  if (dob >= today) return 'must be in the past';
  const [year, month, day] = dob.split('-').map(Number) as [number, number, number];
  const [thisYear, thisMonth, thisDay] = today.split('-').map(Number) as [number, number, number];
  const hadBirthday = thisMonth > month || (thisMonth === month && thisDay >= day);
  const age = thisYear - year - (hadBirthday ? 0 : 1);
  if (age < 18) return 'the person must be at least 18 years old';
  if (age > 120) return 'the person must be at most 120 years old';
  return undefined;
}

/** Exactly one of a file part and a URL; the file's type decided by its bytes. */
function fileSource(
  file: Buffer | undefined,
  url: string | undefined,
  field: string,
  urlField: string,
): FileSource {
  if ((file === undefined) === (url === undefined)) {
    throw validationError({ [field]: [`provide exactly one of ${field} and ${urlField}`] });
  }
  if (url !== undefined) return { kind: 'url', url };
  const bytes = file as Buffer;
  if (bytes.length === 0) throw validationError({ [field]: ['must not be empty'] });
  const contentType = detectFileType(bytes);
  if (!contentType) throw validationError({ [field]: ['must be a PDF, JPEG or PNG file'] });
  return { kind: 'upload', bytes, contentType };
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;

export function createOnboardingService(deps: OnboardingDeps) {
  const { db, clock, keys, storage, kyc, log } = deps;

  async function loadState(partnerId: number, executor: Kysely<Database> = db) {
    const [partner, representative, documents] = await Promise.all([
      repo.findPartnerProfile(executor, partnerId),
      repo.findRepresentative(executor, partnerId),
      repo.listCurrentDocuments(executor, partnerId),
    ]);
    if (!partner) throw new AppError('NOT_FOUND');
    const state: OnboardingState = {
      onboardingStatus: partner.onboarding_status as OnboardingStatus,
      businessType: partner.business_type as BusinessType | null,
      reviewNotes: partner.review_notes,
      representative: representative
        ? { kycStatus: representative.kyc_status, kycMessage: representative.kyc_message }
        : null,
      documents: documents.map((document) => ({
        documentType: document.document_type,
        status: document.status,
        rejectionReason: document.rejection_reason,
      })),
    };
    return { partner, representative, documents, state };
  }

  function profileOf(loaded: Awaited<ReturnType<typeof loadState>>, environment: Environment) {
    const { partner, representative, documents, state } = loaded;
    return {
      company_id: partner.id,
      business_name: partner.business_name,
      legal_business_name: partner.legal_business_name,
      business_type: partner.business_type as BusinessType | null,
      rc_number: partner.rc_number,
      address: partner.address,
      website: partner.website,
      email: partner.email,
      phone: partner.phone,
      onboarding_status: partner.onboarding_status as OnboardingStatus,
      environment,
      representative: representative
        ? {
            first_name: representative.first_name,
            last_name: representative.last_name,
            email: representative.email,
          }
        : null,
      documents: documents.map((document) => ({
        id: document.id,
        document_type: document.document_type as DocumentType,
        status: document.status as 'pending_review' | 'approved' | 'rejected',
        rejection_reason: document.rejection_reason,
        uploaded_at: toIso(document.uploaded_at),
      })),
      document_checklist: checklistOf(state),
      review_notes: partner.review_notes,
      requirements: requirementsOf(state),
    };
  }

  const getProfile = async (session: SessionCredential) =>
    profileOf(await loadState(session.partnerId), session.environment);

  const audit = (trx: Kysely<Database>, entry: AuditEntry, meta: RequestMeta | null, now: number) =>
    insertAuditEvent(trx, entry, meta, now);

  const partnerActor = (partnerId: number) => ({
    actorType: 'partner' as const,
    actorId: partnerId,
    partnerId,
  });

  /**
   * in_progress: every field; active (and suspended): address and website only, since the operator
   * approved the business's identity; under_review and rejected: nothing. The check is part of the
   * UPDATE itself, so a submission racing the update cannot be followed by a write.
   */
  async function updateProfile(session: SessionCredential, input: UpdateProfileBody, meta: RequestMeta) {
    const identityFields = (['legal_business_name', 'business_type', 'rc_number'] as const).filter(
      (field) => input[field] !== undefined,
    );
    const allowed = identityFields.length > 0 ? ['in_progress'] : ['in_progress', 'active', 'suspended'];
    const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
    if (Object.keys(changes).length > 0) {
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.updatePartnerProfile(trx, session.partnerId, changes, allowed, now))) {
          const partner = await repo.findPartnerProfile(trx, session.partnerId);
          if (!partner) throw new AppError('NOT_FOUND');
          throw new AppError('ONBOARDING_LOCKED', {
            message: LOCKED_STATUSES.includes(partner.onboarding_status)
              ? `The profile cannot change while onboarding_status is ${partner.onboarding_status}.`
              : `An approved business cannot change ${identityFields.join(', ')}; contact the operator.`,
          });
        }
        await audit(
          trx,
          {
            ...partnerActor(session.partnerId),
            action: 'onboarding.profile_updated',
            targetType: 'partner',
            targetId: session.partnerId,
            metadata: { fields: Object.keys(changes) },
          },
          meta,
          now,
        );
      });
    }
    return getProfile(session);
  }

  /**
   * Inside a transaction, also takes the partner's row lock: a partner's representative and document
   * writes run one at a time, so racing uploads of one type supersede each other in order.
   */
  async function assertChangeable(trx: Kysely<Database>, partnerId: number, lock = false): Promise<void> {
    if (lock) await repo.lockPartner(trx, partnerId);
    const partner = await repo.findPartnerProfile(trx, partnerId);
    if (!partner) throw new AppError('NOT_FOUND');
    if (LOCKED_STATUSES.includes(partner.onboarding_status)) {
      throw new AppError('ONBOARDING_LOCKED', {
        message: `Representative and documents cannot change while onboarding_status is ${partner.onboarding_status}.`,
      });
    }
  }

  async function storeFile(source: FileSource) {
    if (source.kind === 'url') {
      return { storage_key: null, file_url: source.url, content_type: null, size_bytes: null, sha256: null };
    }
    const key = await storage.put(source.bytes);
    return {
      storage_key: key,
      file_url: null,
      content_type: source.contentType,
      size_bytes: source.bytes.length,
      sha256: createHash('sha256').update(source.bytes).digest('hex'),
    };
  }

  async function checkKyc(input: RepresentativeBody): Promise<KycResult> {
    try {
      return await kyc.verifyBvn({
        bvn: input.bvn,
        firstName: input.first_name,
        lastName: input.last_name,
        dob: input.dob,
      });
    } catch (error) {
      log.error({ err: error, provider: kyc.name }, 'KYC provider failed unexpectedly');
      return {
        outcome: 'error',
        message: 'The identity check could not be completed right now; please retry.',
        reason: 'exception',
      };
    }
  }

  async function saveRepresentative(
    session: SessionCredential,
    input: RepresentativeBody,
    meta: RequestMeta,
  ) {
    const source = fileSource(input.id_file, input.id_file_url, 'id_file', 'id_file_url');
    const dob = dobProblem(input.dob, clock.now());
    if (dob) throw validationError({ dob: [dob] });
    const partnerId = session.partnerId;
    const hash = bvnHash(keys, input.bvn);

    await assertChangeable(db, partnerId);
    const existing = await repo.findRepresentative(db, partnerId);
    if (existing?.bvn_verified_at && existing.bvn_hash !== hash) throw new AppError('BVN_IMMUTABLE');

    const stored = await storeFile(source);
    const result = await checkKyc(input);
    const now = clock.now();
    try {
      const created = await db.transaction().execute(async (trx) => {
        await assertChangeable(trx, partnerId, true);
        const current = await repo.findRepresentative(trx, partnerId);
        if (current?.bvn_verified_at && current.bvn_hash !== hash) throw new AppError('BVN_IMMUTABLE');
        const documentId = newId();
        await repo.replaceCurrentDocument(
          trx,
          {
            id: documentId,
            partner_id: partnerId,
            document_type: 'valid_id',
            status: 'pending_review',
            uploaded_at: now,
            ...stored,
          },
          now,
        );
        const passed = result.outcome === 'passed';
        await repo.upsertRepresentative(trx, {
          partner_id: partnerId,
          first_name: input.first_name,
          last_name: input.last_name,
          email: input.email,
          phone: input.phone,
          dob: input.dob,
          gender: input.gender,
          designation: input.designation,
          id_type: input.id_type,
          id_file_url: stored.file_url,
          id_document_id: documentId,
          address: input.address,
          ...sealBvn(keys, input.bvn),
          kyc_status: result.outcome,
          kyc_message: result.message,
          kyc_provider: kyc.name,
          kyc_checked_at: now,
          // Once a check has passed for this BVN it stays set, whatever later checks say.
          bvn_verified_at: current?.bvn_verified_at ?? (passed ? now : null),
          created_at: now,
          updated_at: now,
        });
        await repo.insertKycCheck(trx, {
          id: newId(),
          partner_id: partnerId,
          subject: 'representative',
          provider: kyc.name,
          outcome: result.outcome,
          reason: result.reason,
          message: result.message,
          bvn_last4: input.bvn.slice(-4),
          created_at: now,
        });
        await audit(
          trx,
          {
            ...partnerActor(partnerId),
            action: current ? 'onboarding.representative_updated' : 'onboarding.representative_added',
            targetType: 'representative',
            targetId: partnerId,
            metadata: { bvn: maskBvn(input.bvn.slice(-4)), id_document_id: documentId },
          },
          meta,
          now,
        );
        await audit(
          trx,
          {
            ...partnerActor(partnerId),
            action: 'kyc.checked',
            targetType: 'representative',
            targetId: partnerId,
            metadata: { provider: kyc.name, outcome: result.outcome, reason: result.reason },
          },
          meta,
          now,
        );
        return current === undefined;
      });
      return {
        created,
        data: {
          representative: { first_name: input.first_name, last_name: input.last_name },
          kyc: { ok: result.outcome === 'passed', message: result.message },
        },
      };
    } catch (error) {
      if (stored.storage_key) await storage.delete(stored.storage_key).catch(() => undefined);
      throw error;
    }
  }

  async function uploadDocument(session: SessionCredential, input: DocumentBody, meta: RequestMeta) {
    const source = fileSource(input.file, input.file_url, 'file', 'file_url');
    const partnerId = session.partnerId;
    await assertChangeable(db, partnerId);
    const stored = await storeFile(source);
    const now = clock.now();
    const id = newId();
    try {
      await db.transaction().execute(async (trx) => {
        await assertChangeable(trx, partnerId, true);
        await repo.replaceCurrentDocument(
          trx,
          {
            id,
            partner_id: partnerId,
            document_type: input.document_type,
            status: 'pending_review',
            uploaded_at: now,
            ...stored,
          },
          now,
        );
        await audit(
          trx,
          {
            ...partnerActor(partnerId),
            action: 'onboarding.document_uploaded',
            targetType: 'document',
            targetId: id,
            metadata: { document_type: input.document_type, source: source.kind },
          },
          meta,
          now,
        );
      });
    } catch (error) {
      if (stored.storage_key) await storage.delete(stored.storage_key).catch(() => undefined);
      throw error;
    }
    return {
      id,
      document_type: input.document_type,
      status: 'pending_review' as const,
      uploaded_at: toIso(now),
    };
  }

  /**
   * Moves onboarding_status. `precondition` runs first in the same transaction, under the partner's
   * row lock, so what it checked (requirements, documents) cannot change before the move commits.
   */
  async function changeStatus(
    partnerId: number,
    change: { from: readonly OnboardingStatus[]; to: OnboardingStatus; reviewNotes: string | null },
    actor: Actor,
    meta: RequestMeta,
    precondition?: (trx: Kysely<Database>) => Promise<void>,
  ): Promise<void> {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      if (precondition) {
        await repo.lockPartner(trx, partnerId);
        await precondition(trx);
      }
      const moved = await repo.transitionOnboardingStatus(trx, partnerId, change, now);
      if (!moved) {
        throw new AppError('ONBOARDING_LOCKED', {
          message: `This needs onboarding_status ${change.from.join(' or ')}.`,
        });
      }
      await audit(
        trx,
        {
          partnerId,
          actorType: actor.type,
          actorId: actor.id,
          action: 'onboarding.status_changed',
          targetType: 'partner',
          targetId: partnerId,
          metadata: {
            from: change.from,
            to: change.to,
            ...(change.reviewNotes ? { reason: change.reviewNotes } : {}),
          },
        },
        meta,
        now,
      );
      await enqueueEvent(
        trx,
        {
          partnerId,
          environments: ENVIRONMENTS,
          type: 'onboarding.status_changed',
          data: { company_id: partnerId, onboarding_status: change.to, review_notes: change.reviewNotes },
        },
        now,
      );
    });
  }

  async function submit(session: SessionCredential, meta: RequestMeta) {
    await changeStatus(
      session.partnerId,
      { from: ['in_progress'], to: 'under_review', reviewNotes: null },
      { type: 'partner', id: session.partnerId },
      meta,
      async (trx) => {
        const { partner, state } = await loadState(session.partnerId, trx);
        if (partner.onboarding_status !== 'in_progress') {
          throw new AppError('ONBOARDING_LOCKED', {
            message: `Only an application in progress can be submitted; it is ${partner.onboarding_status}.`,
          });
        }
        const gaps = submissionGaps(state);
        if (Object.keys(gaps).length > 0) throw new AppError('ONBOARDING_INCOMPLETE', { errors: gaps });
      },
    );
    return getProfile(session);
  }

  async function switchEnvironment(session: SessionCredential, environment: Environment, meta: RequestMeta) {
    const partner = await repo.findPartnerProfile(db, session.partnerId);
    if (!partner) throw new AppError('NOT_FOUND');
    if (environment === 'live' && partner.onboarding_status !== 'active')
      throw new AppError('ONBOARDING_NOT_APPROVED');
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      await deps.setSessionEnvironment(trx, session.sessionId, environment);
      await audit(
        trx,
        {
          ...partnerActor(session.partnerId),
          action: 'session.environment_switched',
          targetType: 'session',
          targetId: session.sessionId,
          metadata: { from: session.environment, to: environment },
        },
        meta,
        now,
      );
    });
    return { environment };
  }

  // Operator decisions (back office).

  async function reviewDocument(
    partnerId: number,
    documentId: string,
    decision: { status: 'approved' | 'rejected'; reason: string | null },
    actor: Actor,
    meta: RequestMeta,
  ) {
    const now = clock.now();
    return db.transaction().execute(async (trx) => {
      // Serialised with approval, which checks every document under the same lock.
      await repo.lockPartner(trx, partnerId);
      const existing = await repo.findDocument(trx, partnerId, documentId);
      if (!existing) throw new AppError('NOT_FOUND');
      const document = await repo.decideDocument(trx, partnerId, documentId, decision, now);
      if (!document) {
        throw new AppError('ONBOARDING_LOCKED', {
          message: existing.superseded_at
            ? 'A newer upload replaced this document; review the current one.'
            : `The document was already ${existing.status}.`,
        });
      }
      await audit(
        trx,
        {
          partnerId,
          actorType: actor.type,
          actorId: actor.id,
          action: `document.${decision.status}`,
          targetType: 'document',
          targetId: documentId,
          metadata: {
            document_type: document.document_type,
            ...(decision.reason ? { reason: decision.reason } : {}),
          },
        },
        meta,
        now,
      );
      await enqueueEvent(
        trx,
        {
          partnerId,
          environments: ENVIRONMENTS,
          type: 'document.reviewed',
          data: {
            id: document.id,
            document_type: document.document_type,
            status: document.status,
            rejection_reason: document.rejection_reason,
          },
        },
        now,
      );
      return document;
    });
  }

  async function approve(partnerId: number, actor: Actor, meta: RequestMeta) {
    await changeStatus(
      partnerId,
      { from: ['under_review'], to: 'active', reviewNotes: null },
      actor,
      meta,
      async (trx) => {
        const { partner, state } = await loadState(partnerId, trx);
        if (partner.onboarding_status !== 'under_review') {
          throw new AppError('ONBOARDING_LOCKED', {
            message: `Only an application under review can be approved; it is ${partner.onboarding_status}.`,
          });
        }
        const gaps = approvalGaps(state);
        if (Object.keys(gaps).length > 0) throw new AppError('ONBOARDING_INCOMPLETE', { errors: gaps });
      },
    );
  }

  const requestChanges = (partnerId: number, reason: string, actor: Actor, meta: RequestMeta) =>
    changeStatus(partnerId, { from: ['under_review'], to: 'in_progress', reviewNotes: reason }, actor, meta);

  const reject = (partnerId: number, reason: string, actor: Actor, meta: RequestMeta) =>
    changeStatus(partnerId, { from: ['under_review'], to: 'rejected', reviewNotes: reason }, actor, meta);

  /** The operator's full view of a partner: BVN masked, KYC history, every document with its source. */
  async function partnerRecord(partnerId: number) {
    const loaded = await loadState(partnerId);
    const [allDocuments, checks] = await Promise.all([
      repo.listAllDocuments(db, partnerId),
      repo.listKycChecks(db, partnerId),
    ]);
    const { partner, representative, state } = loaded;
    return {
      company_id: partner.id,
      business_name: partner.business_name,
      legal_business_name: partner.legal_business_name,
      business_type: partner.business_type,
      rc_number: partner.rc_number,
      address: partner.address,
      website: partner.website,
      email: partner.email,
      phone: partner.phone,
      verified: partner.verified_at !== null,
      onboarding_status: partner.onboarding_status,
      review_notes: partner.review_notes,
      created_at: toIso(partner.created_at),
      representative: representative
        ? {
            first_name: representative.first_name,
            last_name: representative.last_name,
            email: representative.email,
            phone: representative.phone,
            dob: representative.dob,
            gender: representative.gender,
            designation: representative.designation,
            id_type: representative.id_type,
            id_document_id: representative.id_document_id,
            address: representative.address,
            bvn: maskBvn(representative.bvn_last4),
            bvn_locked: representative.bvn_verified_at !== null,
            kyc: {
              status: representative.kyc_status,
              message: representative.kyc_message,
              provider: representative.kyc_provider,
              checked_at: toIso(representative.kyc_checked_at),
            },
          }
        : null,
      documents: allDocuments.map((document) => ({
        id: document.id,
        document_type: document.document_type,
        status: document.status,
        rejection_reason: document.rejection_reason,
        source: document.storage_key ? 'upload' : 'url',
        file_url: document.file_url,
        content_type: document.content_type,
        size_bytes: document.size_bytes,
        uploaded_at: toIso(document.uploaded_at),
        reviewed_at: document.reviewed_at === null ? null : toIso(document.reviewed_at),
        current: document.superseded_at === null,
      })),
      kyc_checks: checks.map((check) => ({
        id: check.id,
        provider: check.provider,
        outcome: check.outcome,
        reason: check.reason,
        message: check.message,
        bvn: maskBvn(check.bvn_last4),
        created_at: toIso(check.created_at),
      })),
      document_checklist: checklistOf(state),
      requirements: requirementsOf(state),
    };
  }

  async function listPartners(filter: {
    onboardingStatus?: string;
    pendingReview?: boolean;
    cursor?: string;
    limit: number;
  }) {
    const cursor = keysetCursor(keys.cursor, 'admin_partners', 'operator', 'number');
    const afterId = cursor.decode(filter.cursor);
    const rows = await repo.listPartners(db, {
      limit: filter.limit,
      ...(afterId !== undefined ? { afterId } : {}),
      ...(filter.onboardingStatus ? { onboardingStatus: filter.onboardingStatus } : {}),
      ...(filter.pendingReview !== undefined ? { pendingReview: filter.pendingReview } : {}),
    });
    const page = cursor.page(rows, filter.limit, (partner) => partner.id);
    const pendingDocuments = await repo.pendingDocumentTypes(
      db,
      page.items.map((partner) => partner.id),
    );
    return {
      next_cursor: page.next_cursor,
      items: page.items.map((partner) => ({
        company_id: partner.id,
        pending_review: [
          ...(partner.onboarding_status === 'under_review' ? ['application'] : []),
          ...(pendingDocuments.get(partner.id) ?? []).map((type) => `documents.${type}`),
        ],
        business_name: partner.business_name,
        legal_business_name: partner.legal_business_name,
        email: partner.email,
        business_type: partner.business_type,
        onboarding_status: partner.onboarding_status,
        created_at: toIso(partner.created_at),
        updated_at: toIso(partner.updated_at),
      })),
    };
  }

  async function openDocumentFile(partnerId: number, documentId: string) {
    const document = await repo.findDocument(db, partnerId, documentId);
    if (!document) throw new AppError('NOT_FOUND');
    if (!document.storage_key) {
      throw new AppError('NOT_FOUND', {
        message: 'This document was provided as a URL (see file_url); no file is stored.',
      });
    }
    const file = await storage.open(document.storage_key);
    return { ...file, contentType: document.content_type ?? 'application/octet-stream', document };
  }

  /** Partner ids exist (404 otherwise) before an operator acts on them. */
  async function assertPartner(partnerId: number): Promise<void> {
    if (!(await repo.findPartnerProfile(db, partnerId))) throw new AppError('NOT_FOUND');
  }

  return {
    getProfile,
    updateProfile,
    saveRepresentative,
    uploadDocument,
    submit,
    switchEnvironment,
    /** Whether a compliance representative is on file (team members need one). */
    hasRepresentative: async (partnerId: number) =>
      (await repo.findRepresentative(db, partnerId)) !== undefined,
    admin: {
      reviewDocument,
      approve,
      requestChanges,
      reject,
      partnerRecord,
      listPartners,
      openDocumentFile,
      assertPartner,
    },
  };
}
