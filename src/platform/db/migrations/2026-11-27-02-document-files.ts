import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/**
 * A superseded document that no operator decided gives up its stored file: `file_deleted_at` says
 * when, and `storage_key` stays set only until the file is removed (after the commit; housekeeping
 * finishes what a crash interrupted, through the partial index). Superseded undecided uploads made
 * before this migration are marked as of their supersession, so housekeeping deletes their files.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('documents').addColumn('file_deleted_at', 'bigint').execute();
  await sql`update documents set file_deleted_at = superseded_at
    where superseded_at is not null and status = 'pending_review' and storage_key is not null`.execute(db);
  await db.schema
    .createIndex('documents_file_deletion_idx')
    .on('documents')
    .column('id')
    .where(sql.ref('file_deleted_at'), 'is not', null)
    .where(sql.ref('storage_key'), 'is not', null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex('documents_file_deletion_idx').execute();
  await db.schema.alterTable('documents').dropColumn('file_deleted_at').execute();
}
