import type { Kysely } from 'kysely';
import { toIso } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { koboToNaira } from '../virtual-accounts/money.js';
import { historiesOf, type StatusChangeRow, type TransferRow } from './transfers.repository.js';

/** A transfer as partners see it, with its status history (oldest first). */
export function transferView(
  row: Omit<TransferRow, 'partner_id'>,
  history: readonly Pick<StatusChangeRow, 'status' | 'at'>[],
) {
  const amountKobo = Number(row.amount_kobo);
  const feeKobo = Number(row.fee_kobo);
  return {
    id: row.id,
    reference: row.reference,
    status: row.status,
    source_account_number: row.source_account_number,
    amount: koboToNaira(amountKobo),
    amount_kobo: amountKobo,
    fee: koboToNaira(feeKobo),
    fee_kobo: feeKobo,
    currency: 'NGN' as const,
    beneficiary: {
      account_name: row.beneficiary_account_name,
      account_number: row.beneficiary_account_number,
      bank_code: row.beneficiary_bank_code,
      bank_name: row.beneficiary_bank_name,
    },
    narration: row.narration,
    session_id: row.session_id,
    failure_reason: row.failure_reason,
    environment: row.environment,
    created_at: toIso(Number(row.created_at)),
    updated_at: toIso(Number(row.updated_at)),
    status_history: history.map((change) => ({ status: change.status, at: toIso(Number(change.at)) })),
  };
}

export type TransferView = ReturnType<typeof transferView>;

/** Transfers as partners see them, each with its status history: one query for the histories. */
export async function transferViews(
  db: Kysely<Database>,
  rows: readonly TransferRow[],
): Promise<TransferView[]> {
  const histories = await historiesOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => transferView(row, histories.get(row.id) ?? []));
}

export const transferViewOf = async (db: Kysely<Database>, row: TransferRow): Promise<TransferView> =>
  (await transferViews(db, [row]))[0] as TransferView;
