import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KNOWN_ISSUES } from './known-issues.js';
import { ALL_PROPERTIES, ascii, type OpStats } from './runner.js';

const SHORT: Record<string, string> = {
  valid: 'valid',
  'invalid-body': 'body',
  transport: 'transp',
  'invalid-params': 'params',
  'invalid-query': 'query',
  auth: 'auth',
  'idempotency-key': 'idem',
};

/** A table of cases per operation and property, the statuses seen, and every allow-listed warning. */
export function formatReport(dialect: string, stats: OpStats[], elapsedMs: number): string {
  const lines: string[] = [];
  const header = [
    'operationId'.padEnd(32),
    ...ALL_PROPERTIES.map((property) => SHORT[property]!.padStart(6)),
    'total'.padStart(6),
    '  statuses',
  ];
  lines.push(`fuzz report (${dialect}, ${(elapsedMs / 1000).toFixed(1)} s)`, header.join(' '));
  let total = 0;
  for (const stat of stats) {
    const cases = ALL_PROPERTIES.map((property) => stat.cases[property] ?? 0);
    const sum = cases.reduce((a, b) => a + b, 0);
    total += sum;
    const statuses = Object.entries(stat.statuses)
      .sort(([, a], [, b]) => b - a)
      .map(([status, count]) => `${status} x${count}`)
      .join(', ');
    lines.push(
      [
        stat.operationId.padEnd(32),
        ...cases.map((count, index) =>
          (count === 0 ? '-' : String(count)).padStart(Math.max(6, SHORT[ALL_PROPERTIES[index]!]!.length)),
        ),
        String(sum).padStart(6),
        ` ${statuses}`,
      ].join(' '),
    );
  }
  lines.push(`total cases: ${total}`);
  const warnings = stats.flatMap((stat) =>
    [...stat.warnings].map(([id, warning]) => ({ operationId: stat.operationId, id, ...warning })),
  );
  if (warnings.length > 0) {
    lines.push('', `allow-listed findings (${warnings.length}):`);
    for (const warning of warnings) {
      lines.push(
        `WARNING [${warning.id}] ${warning.operationId} x${warning.count}: ${warning.reason}`,
        `    e.g. ${warning.example}`,
      );
    }
  }
  const used = new Set(warnings.map((warning) => warning.id));
  const unused = KNOWN_ISSUES.filter((issue) => !used.has(issue.id));
  if (unused.length > 0) {
    lines.push(
      '',
      `allow-list entries that matched nothing in this run (fixed? then remove them): ${unused.map((issue) => issue.id).join(', ')}`,
    );
  }
  return lines.join('\n');
}

/** One line per dialect plus the allow-listed findings; FUZZ_VERBOSE=1 prints the whole table. */
export function formatSummary(dialect: string, stats: OpStats[], elapsedMs: number): string {
  const total = stats.reduce(
    (sum, stat) => sum + Object.values(stat.cases).reduce((a, b) => a + (b ?? 0), 0),
    0,
  );
  const warnings = new Map<string, number>();
  for (const stat of stats) {
    for (const [id, warning] of stat.warnings) warnings.set(id, (warnings.get(id) ?? 0) + warning.count);
  }
  return [
    `fuzz (${dialect}): ${total} cases over ${stats.length} operations in ${(elapsedMs / 1000).toFixed(1)} s` +
      ' (FUZZ_VERBOSE=1 for the table)',
    ...[...warnings].map(([id, count]) => {
      const issue = KNOWN_ISSUES.find((entry) => entry.id === id);
      return `WARNING allow-listed [${id}] x${count}: ${issue?.reason ?? ''}`;
    }),
  ].join('\n');
}

export function writeReport(dialect: string, stats: OpStats[], elapsedMs: number): void {
  const verbose = process.env['FUZZ_VERBOSE'] === '1';
  console.log(
    ascii(verbose ? formatReport(dialect, stats, elapsedMs) : formatSummary(dialect, stats, elapsedMs)),
  );
  const dir = process.env['FUZZ_REPORT_DIR'];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `fuzz-${dialect}.json`),
    JSON.stringify(
      {
        dialect,
        elapsedMs,
        operations: stats.map((stat) => ({ ...stat, warnings: Object.fromEntries(stat.warnings) })),
      },
      null,
      2,
    ),
  );
}
