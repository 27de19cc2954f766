import assert from 'node:assert/strict';

/**
 * A strict RFC 4180 reader: records end in CRLF (the last one too), a quoted field may hold commas,
 * quotes (doubled) and line breaks, and a quote anywhere else or a bare CR/LF is an error.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  let atFieldStart = true;
  while (index < text.length) {
    const char = text[index]!;
    if (atFieldStart && char === '"') {
      index++;
      for (;;) {
        assert.ok(index < text.length, 'unterminated quoted field');
        if (text[index] === '"') {
          if (text[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        field += text[index];
        index++;
      }
      assert.ok(
        index >= text.length || text[index] === ',' || text.startsWith('\r\n', index),
        `text after a closing quote at ${index}`,
      );
      atFieldStart = false;
      continue;
    }
    if (char === ',') {
      record.push(field);
      field = '';
      atFieldStart = true;
      index++;
      continue;
    }
    if (text.startsWith('\r\n', index)) {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      atFieldStart = true;
      index += 2;
      continue;
    }
    assert.ok(char !== '"' && char !== '\r' && char !== '\n', `unquoted ${JSON.stringify(char)} at ${index}`);
    field += char;
    atFieldStart = false;
    index++;
  }
  assert.ok(atFieldStart && record.length === 0 && field === '', 'the last record must end with CRLF');
  return records;
}

/** A CSV answer as objects keyed by its header row (which the reader checks is `columns`). */
export function csvRecords(text: string, columns: readonly string[]): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  assert.deepEqual(header, [...columns]);
  return rows.map((row) => {
    assert.equal(row.length, columns.length, 'every row has every column');
    return Object.fromEntries(columns.map((column, index) => [column, row[index]!]));
  });
}
