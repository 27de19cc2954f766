import type { AnyDb } from './helpers.js';

/**
 * Operators' second factor locks after too many consecutive wrong codes (a count reserved before each
 * check, and the time it locked), and sessions keep where they were opened (IP and browser), so an
 * operator can recognise and end its own sessions.
 */
export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('operators')
    .addColumn('second_factor_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('operators').addColumn('second_factor_locked_at', 'bigint').execute();
  await db.schema.alterTable('operator_sessions').addColumn('ip', 'text').execute();
  await db.schema.alterTable('operator_sessions').addColumn('user_agent', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('operator_sessions').dropColumn('user_agent').execute();
  await db.schema.alterTable('operator_sessions').dropColumn('ip').execute();
  await db.schema.alterTable('operators').dropColumn('second_factor_locked_at').execute();
  await db.schema.alterTable('operators').dropColumn('second_factor_failures').execute();
}
