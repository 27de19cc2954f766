import { csvCell } from '../../platform/http/csv.js';
import { koboToDecimal } from './money.js';
import type { Statement } from './virtual-accounts.service.js';

export const CSV_COLUMNS = [
  'date',
  'reference',
  'type',
  'kind',
  'narration',
  'counterparty_name',
  'counterparty_account_number',
  'counterparty_bank_code',
  'session_id',
  'debit',
  'credit',
  'balance',
] as const;
const CSV_HEADER = `${CSV_COLUMNS.map(csvCell).join(',')}\r\n`;

/**
 * The statement's entries as CSV, a page at a time: a header row, then one row an entry, its amount
 * under `debit` or `credit` and the balance after it, in naira.
 */
export async function* statementCsv(statement: Statement): AsyncGenerator<string> {
  yield CSV_HEADER;
  for await (const page of statement.pages()) {
    let chunk = '';
    for (const transaction of page) {
      const amount = koboToDecimal(transaction.amount_kobo);
      chunk += `${[
        transaction.created_at,
        transaction.reference,
        transaction.type,
        transaction.kind,
        transaction.narration ?? '',
        transaction.counterparty?.account_name ?? '',
        transaction.counterparty?.account_number ?? '',
        transaction.counterparty?.bank_code ?? '',
        transaction.session_id ?? '',
        transaction.type === 'debit' ? amount : '',
        transaction.type === 'credit' ? amount : '',
        koboToDecimal(transaction.balance_after_kobo),
      ]
        .map(csvCell)
        .join(',')}\r\n`;
    }
    yield chunk;
  }
}

/**
 * The statement's success envelope as JSON, a page at a time: the figures, then `transactions`. Every
 * value is one the service built field by field (transactionView), so nothing unlisted can leave.
 */
export async function* statementJson(statement: Statement, message: string): AsyncGenerator<string> {
  const { pages, ...figures } = statement;
  yield `${JSON.stringify({ status: 'success', message, data: figures }).slice(0, -2)},"transactions":[`;
  let separator = '';
  for await (const page of pages()) {
    let chunk = '';
    for (const transaction of page) {
      chunk += separator + JSON.stringify(transaction);
      separator = ',';
    }
    yield chunk;
  }
  yield ']}}';
}
