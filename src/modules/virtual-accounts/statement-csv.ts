import { koboToDecimal } from './money.js';

/**
 * A cell as text a spreadsheet will not run: one that starts like a formula (=, +, -, @, or a tab
 * or carriage return that some tools skip) is prefixed with an apostrophe (OWASP CSV injection),
 * and a cell holding a separator, quote or line break is quoted (RFC 4180).
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export interface StatementLines {
  opening_balance_kobo: number;
  transactions: ReadonlyArray<{
    created_at: string;
    reference: string;
    type: string;
    narration: string | null;
    amount_kobo: number;
  }>;
}

/** The statement's transactions as CSV: a header row, amounts and running balance in naira (2 decimals). */
export function statementCsv(statement: StatementLines): string {
  const lines = ['date,reference,type,narration,amount,balance'];
  let balance = statement.opening_balance_kobo;
  for (const transaction of statement.transactions) {
    balance += transaction.amount_kobo;
    lines.push(
      [
        transaction.created_at,
        transaction.reference,
        transaction.type,
        transaction.narration ?? '',
        koboToDecimal(transaction.amount_kobo),
        koboToDecimal(balance),
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
