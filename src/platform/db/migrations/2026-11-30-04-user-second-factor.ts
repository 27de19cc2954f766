import type { AnyDb } from './helpers.js';

/**
 * A dashboard user's optional second factor (docs/decisions.md, "Dashboard second factor"), the same
 * factor as an operator's: the TOTP secret encrypted with the key ring (a pending one until its first
 * code confirms it), the last accepted time step (a code works once), consecutive failures and the
 * lock; recovery codes as keyed hashes only; the first step of a login that needs a code, kept by its
 * token's hash. A session records whether a second factor made it (0/1, one form on both dialects);
 * the business's policy says what needs one ('live_money' by default, or 'everyone').
 */
export async function up(db: AnyDb): Promise<void> {
  const users = () => db.schema.alterTable('partner_users');
  await users().addColumn('totp_secret', 'text').execute();
  await users().addColumn('totp_pending_secret', 'text').execute();
  await users().addColumn('totp_last_step', 'bigint').execute();
  await users()
    .addColumn('second_factor_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await users().addColumn('second_factor_locked_at', 'bigint').execute();
  await users().addColumn('second_factor_enrolled_at', 'bigint').execute();

  await db.schema
    .createTable('partner_user_recovery_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('partner_users.id').onDelete('cascade'))
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('partner_user_recovery_codes_user_idx')
    .on('partner_user_recovery_codes')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('partner_sign_ins')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('partner_users.id').onDelete('cascade'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('partner_sign_ins_user_idx').on('partner_sign_ins').column('user_id').execute();
  await db.schema
    .createIndex('partner_sign_ins_expiry_idx')
    .on('partner_sign_ins')
    .column('expires_at')
    .execute();

  await db.schema
    .alterTable('sessions')
    .addColumn('second_factor', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('partners')
    .addColumn('second_factor_policy', 'text', (c) => c.notNull().defaultTo('live_money'))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('partners').dropColumn('second_factor_policy').execute();
  await db.schema.alterTable('sessions').dropColumn('second_factor').execute();
  await db.schema.dropTable('partner_sign_ins').execute();
  await db.schema.dropTable('partner_user_recovery_codes').execute();
  for (const column of [
    'second_factor_enrolled_at',
    'second_factor_locked_at',
    'second_factor_failures',
    'totp_last_step',
    'totp_pending_secret',
    'totp_secret',
  ]) {
    await db.schema.alterTable('partner_users').dropColumn(column).execute();
  }
}
