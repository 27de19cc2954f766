import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { AppError } from '../../platform/errors/errors.js';
import { extend } from '../../platform/objects.js';
import type { FileStorage } from '../../platform/storage/storage.js';
import * as repo from './onboarding.repository.js';

const fileDeleted = () =>
  new AppError('NOT_FOUND', {
    message:
      'A newer upload of its type replaced this document before any operator decided it, so its file was deleted; the record stays for the audit trail.',
  });

/**
 * The stored bytes of one of the partner's documents, for the operator's review and for the partner
 * who uploaded it: another partner's document, a URL document and a deleted file are 404.
 */
export async function openDocumentFile(
  db: Kysely<Database>,
  storage: FileStorage,
  partnerId: number,
  documentId: string,
) {
  const document = await repo.findDocument(db, partnerId, documentId);
  if (!document) throw new AppError('NOT_FOUND');
  if (document.file_deleted_at !== null) throw fileDeleted();
  if (!document.storage_key) {
    throw new AppError('NOT_FOUND', {
      message: 'This document was provided as a URL (see file_url); no file is stored.',
    });
  }
  try {
    const file = await storage.open(document.storage_key);
    return extend(file, { contentType: document.content_type ?? 'application/octet-stream', document });
  } catch (error) {
    // An upload that superseded it since the read above deleted the file.
    if ((error as { code?: unknown }).code === 'ENOENT') {
      const now = await repo.findDocument(db, partnerId, documentId);
      if (now?.file_deleted_at != null) throw fileDeleted();
    }
    throw error;
  }
}
