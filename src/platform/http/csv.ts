/*
 * CSV as every download of the API writes it (docs/decisions.md, "Statements" and "CSV exports"):
 * RFC 4180, every cell quoted, rows ending in CRLF, and cells defused against formula injection.
 */

/** What starts a formula (=, +, -, @) or is skipped before one by some tools (tab, carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A formula start right after a separator of some reader: `,`, `;` (a locale's list separator) or tab. */
const FORMULA_AFTER_SEPARATOR = /([,;\t])(?=[=+\-@\t\r])/g;

/**
 * A cell as text a spreadsheet will not run (OWASP CSV injection): every cell is quoted (RFC 4180);
 * a cell that starts like a formula, or holds one right after a separator, is prefixed with an
 * apostrophe, and so is each formula start right after a separator inside it, since a reader
 * splitting on `;` or tab starts a field there whatever the quotes say.
 */
export function csvCell(value: string): string {
  const defused = value.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  const safe = defused !== value || FORMULA_START.test(value) ? `'${defused}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** One record: its cells (null as empty) quoted and defused, ended by CRLF. */
export const csvRow = (cells: ReadonlyArray<string | number | boolean | null>): string =>
  `${cells.map((cell) => csvCell(cell === null ? '' : String(cell))).join(',')}\r\n`;

/** text/csv when the client prefers it to JSON (Accept: text/csv, or listed before application/json). */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const csv = accept.search(/text\/csv/i);
  const json = accept.search(/application\/json|\*\/\*/i);
  return csv !== -1 && (json === -1 || csv < json);
}

/**
 * A header row, then one row for each item of each page, a page per chunk: the caller reads pages
 * with a keyset, so a download of any length holds one page in memory.
 */
export async function* csvDocument<T>(
  columns: readonly string[],
  pages: AsyncIterable<readonly T[]>,
  cells: (item: T) => ReadonlyArray<string | number | boolean | null>,
): AsyncGenerator<string> {
  yield csvRow(columns);
  for await (const page of pages) {
    let chunk = '';
    for (const item of page) chunk += csvRow(cells(item));
    if (chunk !== '') yield chunk;
  }
}
