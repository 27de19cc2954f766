import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

/** Owners are made for this many partners at a time. */
const BATCH = 500;

/**
 * Dashboard users (docs/decisions.md, "Dashboard users and roles"): a business has people, each with
 * an e-mail, a password and a role, instead of one shared login. Every existing partner gets an owner
 * user from its registered e-mail and password hash, named after the e-mail's local part (a person's
 * handle; the business name names the company, not who acted); its sessions become that owner's.
 * partners.email stays the business's contact address; partners.password_hash is no longer read.
 *
 * A user is removed softly (removed_at) so the audit trail can still name them; an address belongs
 * to at most one user not removed (a partial unique index on its lower-cased form). Invitations keep
 * only a token's hash; at most one pending invitation per business and address.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('partner_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_login_at', 'bigint')
    .addColumn('removed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('partner_users_email_idx')
    .on('partner_users')
    .expression(sql`lower(email)`)
    .unique()
    .where(sql.ref('removed_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('partner_users_partner_idx')
    .on('partner_users')
    .columns(['partner_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('partner_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'integer', (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by_user_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('accepted_user_id', 'text')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('partner_invitations_open_idx')
    .on('partner_invitations')
    .columns(['partner_id', 'email'])
    .unique()
    .where(sql.ref('accepted_at'), 'is', null)
    .where(sql.ref('revoked_at'), 'is', null)
    .execute();

  await db.schema.alterTable('sessions').addColumn('user_id', 'text').execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await db.schema.alterTable('api_keys').addColumn('created_by_user_id', 'text').execute();

  let afterId = 0;
  for (;;) {
    const partners: Array<{ id: number; email: string; password_hash: string; created_at: number }> = await db
      .selectFrom('partners')
      .select(['id', 'email', 'password_hash', 'created_at'])
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (partners.length === 0) break;
    await db
      .insertInto('partner_users')
      .values(
        partners.map((partner) => ({
          id: randomUUID(),
          partner_id: partner.id,
          email: partner.email,
          name: partner.email.split('@')[0] || partner.email,
          password_hash: partner.password_hash,
          role: 'owner',
          created_by_user_id: null,
          created_at: Number(partner.created_at),
          updated_at: Number(partner.created_at),
          last_login_at: null,
          removed_at: null,
        })),
      )
      .execute();
    afterId = partners.at(-1)!.id;
  }
  await sql`update sessions set user_id = (select u.id from partner_users u where u.partner_id = sessions.partner_id and u.role = 'owner')`.execute(
    db,
  );
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('created_by_user_id').execute();
  await db.schema.dropIndex('sessions_user_idx').execute();
  await db.schema.alterTable('sessions').dropColumn('user_id').execute();
  await db.schema.dropTable('partner_invitations').execute();
  await db.schema.dropTable('partner_users').execute();
}
