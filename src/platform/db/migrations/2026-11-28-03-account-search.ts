import { sql } from 'kysely';
import { type AnyDb, isPostgres } from './helpers.js';

/**
 * Prefix search of a partner's accounts (`?q=` on the account list) by account number, end-user
 * e-mail, full name and last name, each a range scan of its own index. The search compares bytes
 * (`prefixRange` in platform/db/dialect.ts): on PostgreSQL the indexed expressions carry
 * COLLATE "C", so the index order is the byte order the range assumes whatever the database's
 * collation; SQLite's default collation already is. Names are indexed lower-cased; e-mails are
 * stored lower-cased, account numbers are digits.
 */
const INDEXES = [
  ['virtual_accounts_number_prefix_idx', 'account_number'],
  ['virtual_accounts_email_prefix_idx', 'customer_email'],
  ['virtual_accounts_full_name_prefix_idx', "lower(first_name || ' ' || last_name)"],
  ['virtual_accounts_last_name_prefix_idx', 'lower(last_name)'],
] as const;

export async function up(db: AnyDb): Promise<void> {
  const postgres = isPostgres(db);
  for (const [name, expression] of INDEXES) {
    const key = postgres ? `(${expression}) collate "C"` : expression;
    await sql`create index ${sql.id(name)} on virtual_accounts (partner_id, environment, ${sql.raw(key)})`.execute(
      db,
    );
  }
}

export async function down(db: AnyDb): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}
