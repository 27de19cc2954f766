import type { AnyDb } from './helpers.js';

/**
 * Phone numbers stored as people wrote them (`0803 123 4567`, `+234 803 123 4567`) become E.164
 * (`+2348031234567`), the form the API now stores and returns (docs/decisions.md, "Phone
 * numbers"). A value that cannot be read as a phone number is left as it is. The rules are a frozen
 * copy of platform/phone.ts as of this migration, so a later change there does not change what this
 * migration did. Audit details and event payloads keep the numbers as they were: they are history.
 */

const NIGERIAN_NSN = /^(?:7[0-2]|8[01]|9[01])[0-9]{8}$|^20[1-9][0-9]{7}$/;
const NIGERIAN_NON_GEOGRAPHIC = /^[789]00/;

function toE164(input: string): string | null {
  const compact = input.trim().replace(/[ ()-]/g, '');
  let international: string;
  if (compact.startsWith('+')) international = compact.slice(1);
  else if (compact.startsWith('00')) international = compact.slice(2);
  else if (compact.startsWith('0')) international = `234${compact.slice(1)}`;
  else if (compact.startsWith('234')) international = compact;
  else return null;
  if (!/^[1-9][0-9]*$/.test(international)) return null;
  if (international.startsWith('234')) {
    let nsn = international.slice(3);
    if (nsn.length === 11 && nsn.startsWith('0')) nsn = nsn.slice(1);
    return NIGERIAN_NSN.test(nsn) && !NIGERIAN_NON_GEOGRAPHIC.test(nsn) ? `+234${nsn}` : null;
  }
  if (international.length < 8 || international.length > 15) return null;
  return `+${international}`;
}

/** Each table with a phone column, by its primary key. */
const PHONE_COLUMNS = [
  { table: 'partners', key: 'id' },
  { table: 'representatives', key: 'partner_id' },
  { table: 'team_members', key: 'id' },
  { table: 'virtual_accounts', key: 'id' },
] as const;

const BATCH = 500;

export async function up(db: AnyDb): Promise<void> {
  for (const { table, key } of PHONE_COLUMNS) {
    // Pages by primary key, so a large table is never read into memory at once.
    let after: string | number | undefined;
    for (;;) {
      let query = db
        .selectFrom(table)
        .select([`${key} as key`, 'phone'])
        .orderBy(key)
        .limit(BATCH);
      if (after !== undefined) query = query.where(key, '>', after);
      const rows: Array<{ key: string | number; phone: string }> = await query.execute();
      for (const row of rows) {
        const e164 = toE164(row.phone);
        if (e164 !== null && e164 !== row.phone) {
          await db.updateTable(table).set({ phone: e164 }).where(key, '=', row.key).execute();
        }
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.key;
    }
  }
}

/** The numbers as they were written are not kept: E.164 is a valid value for every phone column. */
export async function down(): Promise<void> {}
