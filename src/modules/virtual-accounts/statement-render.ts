import { koboToDecimal } from './money.js';
import type { Statement } from './virtual-accounts.service.js';

/**
 * A cell as text a spreadsheet will not run: one that starts like a formula (=, +, -, @, or a tab
 * or carriage return that some tools skip) is prefixed with an apostrophe (OWASP CSV injection),
 * and a cell holding a separator, quote or line break is quoted (RFC 4180).
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The statement's transactions as CSV, a page at a time: a header row, amounts and running balance in naira. */
export async function* statementCsv(statement: Statement): AsyncGenerator<string> {
  yield 'date,reference,type,narration,amount,balance\r\n';
  let balance = statement.opening_balance_kobo;
  for await (const page of statement.pages()) {
    let chunk = '';
    for (const transaction of page) {
      balance += transaction.amount_kobo;
      chunk += `${[
        transaction.created_at,
        transaction.reference,
        transaction.type,
        transaction.narration ?? '',
        koboToDecimal(transaction.amount_kobo),
        koboToDecimal(balance),
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
