import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { actorOf, type RequestMeta } from '../../platform/audit/audit.repository.js';
import type { AuditedWrite, WriteContext } from '../../platform/audit/audited-write.js';
import type { SessionCredential } from '../../platform/auth/credentials.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { bvnHash, maskBvn, sealBvn } from '../../platform/crypto/bvn.js';
import type { KeyRing } from '../../platform/crypto/keys.js';
import { newId, sha256 } from '../../platform/crypto/tokens.js';
import type { Database } from '../../platform/db/schema.js';
import type { Environment } from '../../platform/environment.js';
import { AppError, validationError } from '../../platform/errors/errors.js';
import { detectFileType } from '../../platform/storage/file-type.js';
import type { FileStorage } from '../../platform/storage/storage.js';
import type { KycProvider, KycResult } from '../kyc/kyc.js';
import type { Notifications } from '../notifications/notifications.service.js';
import type { OnboardingStatus } from '../partners/partners.schemas.js';
import { checkDob } from '../people/date-of-birth.js';
import { openDocumentFile } from './document-files.js';
import type { ProfileRecord } from './onboarding.repository.js';
import * as repo from './onboarding.repository.js';
import type {
  DocumentBody,
  DocumentType,
  RepresentativeBody,
  UpdateProfileBody,
} from './onboarding.schemas.js';
import { profileView, stateOf } from './onboarding.views.js';
import { submissionGaps } from './requirements.js';
import { loadRecord, lockForDecision, moveStatus } from './transitions.js';

/** While the operator reviews an application, and after a final rejection, nothing changes. */
const LOCKED_STATUSES: readonly OnboardingStatus[] = ['under_review', 'rejected'];
/** Where address and website may change. */
const PROFILE_STATUSES: readonly OnboardingStatus[] = ['in_progress', 'active', 'suspended'];
/** Where the business's identity may change: before the operator approved it. */
const IDENTITY_STATUSES: readonly OnboardingStatus[] = ['in_progress'];
const IDENTITY_FIELDS = ['legal_business_name', 'business_type', 'rc_number'] as const;
/** Given at registration; correctable only until the application is first submitted. */
const REGISTRATION_FIELDS = ['business_name', 'phone'] as const;

export interface OnboardingDeps {
  db: Kysely<Database>;
  write: AuditedWrite;
  clock: Clock;
  keys: KeyRing;
  storage: FileStorage;
  kyc: KycProvider;
  log: Logger;
  notify: Notifications;
  /** Provided by the accounts module, which owns sessions and decides which are valid. */
  sessionCredential(session: repo.SessionWithPartner | undefined): SessionCredential;
  setSessionEnvironment(
    trx: Transaction<Database>,
    sessionId: string,
    environment: Environment,
  ): Promise<void>;
}

/** An uploaded file or a partner-hosted URL, already checked. */
type FileSource = { kind: 'upload'; bytes: Buffer; contentType: string } | { kind: 'url'; url: string };

/** Where a document's file is, as its row records it: stored bytes, or the partner's URL. */
type StoredFile = Pick<
  repo.DocumentRow,
  'storage_key' | 'file_url' | 'content_type' | 'size_bytes' | 'sha256'
>;

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

const lockedError = (status: OnboardingStatus, what: string) =>
  new AppError('ONBOARDING_LOCKED', {
    message: `${what} cannot change while onboarding_status is ${status}.`,
  });

/** Why a profile update found nothing it may change (updatePartnerProfile refused it). */
function profileLockedError(
  partner: Pick<repo.PartnerProfileRow, 'onboarding_status' | 'first_submitted_at'>,
  registrationFields: readonly string[],
  identityFields: readonly string[],
): AppError {
  if (LOCKED_STATUSES.includes(partner.onboarding_status))
    return lockedError(partner.onboarding_status, 'The profile');
  if (registrationFields.length > 0 && partner.first_submitted_at !== null) {
    return new AppError('ONBOARDING_LOCKED', {
      message: `${registrationFields.join(' and ')} can change only until the application is first submitted; contact the operator.`,
    });
  }
  return new AppError('ONBOARDING_LOCKED', {
    message: `An approved business cannot change ${identityFields.join(', ')}; contact the operator.`,
  });
}

export type OnboardingService = ReturnType<typeof createOnboardingService>;

/**
 * The partner's side of onboarding: profile, representative, documents, submission, environment. The
 * operator's side (review queue, decisions) is review.service.ts.
 */
export function createOnboardingService(deps: OnboardingDeps) {
  const { db, write, clock, keys, storage, kyc, log } = deps;

  /** `preloaded`: the record read with the session (authenticateWithRecord), when the route asked for it. */
  const getProfile = async (session: SessionCredential, preloaded?: unknown) =>
    profileView(
      (preloaded as ProfileRecord | undefined) ?? (await loadRecord(db, session.partnerId)),
      session.environment,
    );

  /** A session token's credential and its partner's onboarding record, in one statement. */
  async function authenticateWithRecord(token: string) {
    const found = await repo.findProfileRecordBySession(db, sha256(token));
    return { credential: deps.sessionCredential(found?.session), data: found?.record };
  }

  /**
   * in_progress: every field, and the registration's business_name and phone until the first
   * submission (the owner of an address taken back from a squatter corrects them); active (and
   * suspended): address and website only, since the operator approved the business's identity;
   * under_review and rejected: nothing. The check is part of the UPDATE itself, so a submission
   * racing the update cannot be followed by a write.
   */
  async function updateProfile(session: SessionCredential, input: UpdateProfileBody, meta: RequestMeta) {
    const sent = (fields: readonly (keyof UpdateProfileBody)[]) =>
      fields.filter((field) => input[field] !== undefined);
    const registrationFields = sent(REGISTRATION_FIELDS);
    const identityFields = [...registrationFields, ...sent(IDENTITY_FIELDS)];
    const allowed = {
      statuses: identityFields.length > 0 ? IDENTITY_STATUSES : PROFILE_STATUSES,
      neverSubmitted: registrationFields.length > 0,
    };
    const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
    await write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
      // The registration data it replaces goes into the audit trail: read under the row lock.
      let before: repo.PartnerProfileRow | undefined;
      if (registrationFields.length > 0) {
        await repo.lockPartner(trx, session.partnerId);
        before = await repo.findPartnerProfile(trx, session.partnerId);
      }
      if (!(await repo.updatePartnerProfile(trx, session.partnerId, changes, allowed, now))) {
        const partner = before ?? (await repo.findPartnerProfile(trx, session.partnerId));
        if (!partner) throw new AppError('NOT_FOUND');
        throw profileLockedError(partner, registrationFields, identityFields);
      }
      audit({
        action: 'onboarding.profile_updated',
        targetType: 'partner',
        targetId: session.partnerId,
        metadata: {
          fields: Object.keys(changes),
          ...(before
            ? { previous: Object.fromEntries(registrationFields.map((field) => [field, before[field]])) }
            : {}),
        },
      });
    });
    return getProfile(session);
  }

  async function assertChangeable(executor: Kysely<Database>, partnerId: number): Promise<void> {
    const partner = await repo.findPartnerProfile(executor, partnerId);
    if (!partner) throw new AppError('NOT_FOUND');
    if (LOCKED_STATUSES.includes(partner.onboarding_status))
      throw lockedError(partner.onboarding_status, 'Representative and documents');
  }

  /**
   * Takes the partner's row lock for the rest of the transaction and checks the status under it: a
   * partner's representative and document writes run one at a time, and none lands after a
   * submission. (The same check runs once before, outside the transaction, only to refuse early,
   * before a file is stored or the KYC provider is called.)
   */
  async function lockChangeable(trx: Transaction<Database>, partnerId: number): Promise<void> {
    await repo.lockPartner(trx, partnerId);
    await assertChangeable(trx, partnerId);
  }

  /** Stores an upload, runs `work`, and removes the stored file again if `work` fails. */
  async function withStoredFile<T>(source: FileSource, work: (stored: StoredFile) => Promise<T>): Promise<T> {
    if (source.kind === 'url') {
      return work({
        storage_key: null,
        file_url: source.url,
        content_type: null,
        size_bytes: null,
        sha256: null,
      });
    }
    const key = await storage.put(source.bytes);
    try {
      return await work({
        storage_key: key,
        file_url: null,
        content_type: source.contentType,
        size_bytes: source.bytes.length,
        sha256: createHash('sha256').update(source.bytes).digest('hex'),
      });
    } catch (error) {
      await storage.delete(key).catch(() => undefined);
      throw error;
    }
  }

  /** Each superseded document that gave up its file, in the audit trail of the upload that replaced it. */
  function auditReleased(
    audit: WriteContext['audit'],
    released: repo.ReleasedFile[],
    documentType: DocumentType,
    replacedBy: string,
  ): void {
    for (const file of released) {
      audit({
        action: 'onboarding.document_file_deleted',
        targetType: 'document',
        targetId: file.id,
        metadata: {
          document_type: documentType,
          reason: 'superseded_before_review',
          replacement_id: replacedBy,
        },
      });
    }
  }

  /**
   * Removes files their documents gave up, after the transaction that released them committed: the
   * row is the truth, so a crash in between leaves a file no row serves (housekeeping removes it),
   * never a row naming a missing file. Never fails: the change it follows is already committed.
   */
  async function deleteReleasedFiles(files: repo.ReleasedFile[]): Promise<void> {
    if (files.length === 0) return;
    const deleted: string[] = [];
    for (const file of files) {
      try {
        await storage.delete(file.storage_key);
        deleted.push(file.id);
      } catch (error) {
        log.warn(
          { err: error, documentId: file.id },
          'a released file was not deleted; housekeeping retries',
        );
      }
    }
    await repo
      .forgetReleasedFiles(db, deleted)
      .catch((error: unknown) =>
        log.warn({ err: error }, 'deleted files not recorded yet; housekeeping records them'),
      );
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

  /** The representative as sent, with its ID document, its sealed BVN and the check just made. */
  function representativeRow(
    partnerId: number,
    input: RepresentativeBody,
    id: { documentId: string; fileUrl: string | null },
    kycResult: KycResult,
    current: repo.RepresentativeRow | undefined,
    now: number,
  ): repo.NewRepresentative {
    return {
      partner_id: partnerId,
      first_name: input.first_name,
      last_name: input.last_name,
      email: input.email,
      phone: input.phone,
      dob: input.dob,
      gender: input.gender,
      designation: input.designation,
      id_type: input.id_type,
      id_file_url: id.fileUrl,
      id_document_id: id.documentId,
      address: input.address,
      ...sealBvn(keys, input.bvn),
      kyc_status: kycResult.outcome,
      kyc_message: kycResult.message,
      kyc_provider: kyc.name,
      kyc_checked_at: now,
      // Once a check has passed for this BVN it stays set, whatever later checks say.
      bvn_verified_at: current?.bvn_verified_at ?? (kycResult.outcome === 'passed' ? now : null),
      created_at: now,
      updated_at: now,
    };
  }

  /**
   * Under the partner's lock: the ID becomes the current valid_id document, the representative is
   * written with the KYC result, and the check joins the KYC history; each step audited.
   */
  async function replaceRepresentative(
    { trx, now, audit }: WriteContext,
    partnerId: number,
    input: RepresentativeBody,
    stored: StoredFile,
    kycResult: KycResult,
    current: repo.RepresentativeRow | undefined,
  ): Promise<{ created: boolean; released: repo.ReleasedFile[] }> {
    const documentId = newId();
    const released = await repo.replaceCurrentDocument(trx, {
      id: documentId,
      partner_id: partnerId,
      document_type: 'valid_id',
      status: 'pending_review',
      uploaded_at: now,
      ...stored,
    });
    auditReleased(audit, released, 'valid_id', documentId);
    const id = { documentId, fileUrl: stored.file_url };
    await repo.upsertRepresentative(trx, representativeRow(partnerId, input, id, kycResult, current, now));
    await repo.insertKycCheck(trx, {
      id: newId(),
      partner_id: partnerId,
      subject: 'representative',
      provider: kyc.name,
      outcome: kycResult.outcome,
      reason: kycResult.reason,
      message: kycResult.message,
      bvn_last4: input.bvn.slice(-4),
      created_at: now,
    });
    audit({
      action: current ? 'onboarding.representative_updated' : 'onboarding.representative_added',
      targetType: 'representative',
      targetId: partnerId,
      metadata: { bvn: maskBvn(input.bvn.slice(-4)), id_document_id: documentId },
    });
    audit({
      action: 'kyc.checked',
      targetType: 'representative',
      targetId: partnerId,
      metadata: { provider: kyc.name, outcome: kycResult.outcome, reason: kycResult.reason },
    });
    return { created: current === undefined, released };
  }

  /**
   * Checked before the ID is stored and the KYC provider asked (status, age, a verified BVN kept), and
   * again under the partner's lock before anything is written.
   */
  async function saveRepresentative(
    session: SessionCredential,
    input: RepresentativeBody,
    meta: RequestMeta,
  ) {
    const source = fileSource(input.id_file, input.id_file_url, 'id_file', 'id_file_url');
    checkDob(input.dob, clock.now());
    const partnerId = session.partnerId;
    const hash = bvnHash(keys, input.bvn);
    const bvnLocked = (representative: repo.RepresentativeRow | undefined) =>
      representative?.bvn_verified_at != null && representative.bvn_hash !== hash;

    await assertChangeable(db, partnerId);
    if (bvnLocked(await repo.findRepresentative(db, partnerId))) throw new AppError('BVN_IMMUTABLE');
    const { kycResult, saved } = await withStoredFile(source, async (stored) => {
      const kycResult = await checkKyc(input);
      const saved = await write({ actor: actorOf(session), meta }, async (context) => {
        await lockChangeable(context.trx, partnerId);
        const current = await repo.findRepresentative(context.trx, partnerId);
        if (bvnLocked(current)) throw new AppError('BVN_IMMUTABLE');
        return replaceRepresentative(context, partnerId, input, stored, kycResult, current);
      });
      return { kycResult, saved };
    });
    await deleteReleasedFiles(saved.released);
    return {
      created: saved.created,
      data: {
        representative: { first_name: input.first_name, last_name: input.last_name },
        kyc: { ok: kycResult.outcome === 'passed', message: kycResult.message },
      },
    };
  }

  async function uploadDocument(session: SessionCredential, input: DocumentBody, meta: RequestMeta) {
    const source = fileSource(input.file, input.file_url, 'file', 'file_url');
    const partnerId = session.partnerId;
    await assertChangeable(db, partnerId);
    const id = newId();
    const { uploadedAt, released } = await withStoredFile(source, (stored) =>
      write({ actor: actorOf(session), meta }, async ({ trx, now, audit }) => {
        await lockChangeable(trx, partnerId);
        const released = await repo.replaceCurrentDocument(trx, {
          id,
          partner_id: partnerId,
          document_type: input.document_type,
          status: 'pending_review',
          uploaded_at: now,
          ...stored,
        });
        audit({
          action: 'onboarding.document_uploaded',
          targetType: 'document',
          targetId: id,
          metadata: { document_type: input.document_type, source: source.kind },
        });
        auditReleased(audit, released, input.document_type, id);
        return { uploadedAt: now, released };
      }),
    );
    await deleteReleasedFiles(released);
    return {
      id,
      document_type: input.document_type,
      status: 'pending_review' as const,
      uploaded_at: toIso(uploadedAt),
    };
  }

  async function submit(session: SessionCredential, meta: RequestMeta) {
    await write({ actor: actorOf(session), meta }, async (context) => {
      const record = await lockForDecision(context.trx, session.partnerId);
      if (record.partner.onboarding_status !== 'in_progress') {
        throw new AppError('ONBOARDING_LOCKED', {
          message: `Only an application in progress can be submitted; it is ${record.partner.onboarding_status}.`,
        });
      }
      const gaps = submissionGaps(stateOf(record));
      if (Object.keys(gaps).length > 0) throw new AppError('ONBOARDING_INCOMPLETE', { errors: gaps });
      await moveStatus(context, session.partnerId, {
        from: ['in_progress'],
        to: 'under_review',
        reviewNotes: null,
      });
      await repo.markSubmitted(context.trx, session.partnerId, context.now);
      await deps.notify.applicationSubmitted(
        context.trx,
        session.partnerId,
        record.partner.first_submitted_at === null,
        context.now,
      );
    });
    return getProfile(session);
  }

  async function switchEnvironment(session: SessionCredential, environment: Environment, meta: RequestMeta) {
    const partner = await repo.findPartnerProfile(db, session.partnerId);
    if (!partner) throw new AppError('NOT_FOUND');
    if (environment === 'live' && partner.onboarding_status === 'suspended')
      throw new AppError('PARTNER_SUSPENDED');
    if (environment === 'live' && partner.onboarding_status !== 'active')
      throw new AppError('ONBOARDING_NOT_APPROVED');
    await write({ actor: actorOf(session), meta }, async ({ trx, audit }) => {
      await deps.setSessionEnvironment(trx, session.sessionId, environment);
      audit({
        action: 'session.environment_switched',
        targetType: 'session',
        targetId: session.sessionId,
        metadata: { from: session.environment, to: environment },
      });
    });
    return { environment };
  }

  /** Housekeeping: removes the files a crash (or a failed delete) left after their documents gave them up. */
  async function deleteLeftoverFiles(): Promise<void> {
    await deleteReleasedFiles(await repo.releasedFiles(db, 500));
  }

  return {
    getProfile,
    authenticateWithRecord,
    updateProfile,
    saveRepresentative,
    uploadDocument,
    /** The stored file of one of the partner's own documents (any other is 404). */
    openDocumentFile: (session: SessionCredential, documentId: string) =>
      openDocumentFile(db, storage, session.partnerId, documentId),
    submit,
    switchEnvironment,
    /** Whether a compliance representative is on file (team members need one). */
    hasRepresentative: async (partnerId: number) =>
      (await repo.findRepresentative(db, partnerId)) !== undefined,
    deleteLeftoverFiles,
  };
}
