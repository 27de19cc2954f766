import { DISTURBED_CORES } from './cpu.js';
import type { Measurement, Parity, ScenarioOutcome, SideResult, Verdict } from './scenario.js';

export interface ScenarioReport {
  name: string;
  title: string;
  outcome: ScenarioOutcome;
  verdicts: Verdict[];
}

const num = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const pad = (text: string, width: number) => text.padStart(width);

/** Server CPU time per answered request, in µs (undefined CPU figures give NaN). */
export function cpuMicrosPerRequest(side: SideResult, part: 'server' | 'loop' = 'server'): number {
  const responses = side.load.responses + (side.probe?.responses ?? 0);
  if (!side.cpu) return Number.NaN;
  const cores = part === 'server' ? side.cpu.server : side.cpu.serverLoop;
  return (cores * side.load.durationSec * 1e6) / responses;
}

function sideCells(measurement: Measurement | undefined): string {
  if (!measurement) return `${pad('', 8)} ${pad('', 8)} ${pad('', 8)} ${pad('', 4)}`;
  return [
    pad(num(measurement.rps, 0), 8),
    pad(num(measurement.p50Ms, 2), 8),
    pad(num(measurement.p99Ms, 2), 8),
    pad(String(measurement.errors), 4),
  ].join(' ');
}

function row(scenario: string, app: Measurement, raw: Measurement): string {
  const ratio = raw.rps > 0 ? app.rps / raw.rps : Number.NaN;
  return [
    scenario.padEnd(20),
    app.label.padEnd(18),
    sideCells(app),
    ' |',
    sideCells(raw),
    ' |',
    pad(num(ratio, 2), 7),
  ].join(' ');
}

export function parityVerdict(parity: Parity): Verdict {
  return {
    target: 'raw answers like the app',
    value: parity.problems.length,
    threshold: 0,
    pass: parity.ok,
    detail: parity.ok ? 'same status, header names and body' : parity.problems.join('; '),
  };
}

export function renderTable(reports: ScenarioReport[]): string {
  const lines: string[] = [];
  const sideHead = `${pad('req/s', 8)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('err', 4)}`;
  const blank = ''.padEnd(20 + 1 + 18);
  lines.push(`${blank} ${'app'.padStart(17).padEnd(31)} |  ${'raw node:http'.padStart(20).padEnd(30)} |`);
  lines.push(`${'scenario'.padEnd(20)} ${'measure'.padEnd(18)} ${sideHead}  | ${sideHead}  | app/raw`);
  lines.push('-'.repeat(lines[1]!.length));
  for (const report of reports) {
    const { app, raw } = report.outcome;
    lines.push(row(report.name, app.load, raw.load));
    if (app.probe && raw.probe) lines.push(row('', app.probe, raw.probe));
  }
  lines.push('');
  lines.push(
    'CPU during the measurements, in cores (server: all its threads; loop: its event-loop thread alone),',
  );
  lines.push("and the server's CPU time per answered request; other > 0.3 cores means a disturbed figure");
  lines.push(
    `${'scenario'.padEnd(20)} side ${pad('server', 7)} ${pad('loop', 6)} ${pad('postgres', 8)} ${pad('bench', 6)} ${pad('other', 6)}  ${pad('µs/req', 8)} ${pad('loop µs/req', 11)}`,
  );
  for (const report of reports) {
    const perRequest = {
      app: cpuMicrosPerRequest(report.outcome.app),
      raw: cpuMicrosPerRequest(report.outcome.raw),
    };
    (['app', 'raw'] as const).forEach((side, index) => {
      const result = report.outcome[side];
      const name = index === 0 ? report.name : '';
      if (!result.cpu) {
        lines.push(`${name.padEnd(20)} ${side}  -`);
        return;
      }
      const { server, serverLoop, database, bench, other } = result.cpu;
      const cells = [
        pad(num(server, 2), 7),
        pad(num(serverLoop, 2), 6),
        pad(num(database, 2), 8),
        pad(num(bench, 2), 6),
        pad(num(other, 2), 6),
      ];
      const ratio = side === 'app' ? `  (${num(perRequest.app / perRequest.raw, 1)}× raw)` : '';
      lines.push(
        `${name.padEnd(20)} ${side}  ${cells.join(' ')}  ${pad(num(perRequest[side], 0), 8)} ${pad(num(cpuMicrosPerRequest(result, 'loop'), 0), 11)}${ratio}`,
      );
    });
  }
  const disturbed = reports.filter((report) =>
    (['app', 'raw'] as const).some((side) => (report.outcome[side].cpu?.other ?? 0) > DISTURBED_CORES),
  );
  if (disturbed.length > 0) {
    lines.push(
      `  WARNING: other processes used more than ${DISTURBED_CORES} cores during ${disturbed.map((r) => r.name).join(', ')}: ` +
        'run again on a quiet machine.',
    );
  }
  lines.push('');
  lines.push('Targets');
  for (const report of reports) {
    for (const verdict of report.verdicts) {
      lines.push(
        `  ${verdict.pass ? 'PASS' : 'FAIL'}  ${report.name.padEnd(20)} ${verdict.target.padEnd(34)} ${verdict.detail}`,
      );
    }
  }
  return lines.join('\n');
}
