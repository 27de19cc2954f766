import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Where the machine's CPU went during a measurement (Linux /proc): the server under test, the
 * PostgreSQL server (BENCH_DB=postgres), this process (the load generator) and everything else.
 * "Other" above a few tenths of a core means the figures were disturbed by another workload (a test
 * run, a build) and should be taken again.
 */
export interface CpuUse {
  /** Average cores busy over the measurement. */
  server: number;
  /** The server's main (event-loop) thread alone: the rest is libuv's pool (argon2), GC helpers... */
  serverLoop: number;
  database: number;
  bench: number;
  other: number;
}

interface Snapshot {
  at: number;
  busy: number;
  server: number;
  serverLoop: number;
  bench: number;
  database: Map<number, number>;
}

/** Cores used by other processes above which a measurement counts as disturbed. */
export const DISTURBED_CORES = 0.3;

/** USER_HZ: /proc reports times in these ticks on every mainstream Linux build. */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process (all its threads), or of one thread with `/task/<tid>` appended. */
function processTicks(pid: number, thread = ''): number {
  const stat = readFileSync(`/proc/${pid}${thread}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields overall.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function machineBusyTicks(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}

/** CPU ticks of every process with this command name (the postgres server and its backends). */
function ticksByCommand(command: string): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command) {
        ticks.set(Number(entry), processTicks(Number(entry)));
      }
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks;
}

function snapshot(serverPid: number, withDatabase: boolean): Snapshot | undefined {
  try {
    return {
      at: performance.now(),
      busy: machineBusyTicks(),
      server: processTicks(serverPid),
      serverLoop: processTicks(serverPid, `/task/${serverPid}`),
      bench: processTicks(process.pid),
      database: withDatabase ? ticksByCommand('postgres') : new Map(),
    };
  } catch {
    return undefined;
  }
}

/**
 * Starts counting; the returned function gives the CPU use since then (undefined without /proc).
 * With `withDatabase`, postgres processes count as the database rather than as other load.
 */
export function watchCpu(serverPid: number, withDatabase: boolean): () => CpuUse | undefined {
  const start = snapshot(serverPid, withDatabase);
  return () => {
    const end = snapshot(serverPid, withDatabase);
    if (!start || !end) return undefined;
    const ticks = ((end.at - start.at) / 1000) * TICKS_PER_SECOND;
    const server = (end.server - start.server) / ticks;
    const serverLoop = (end.serverLoop - start.serverLoop) / ticks;
    const bench = (end.bench - start.bench) / ticks;
    let databaseTicks = 0;
    for (const [pid, value] of end.database) databaseTicks += value - (start.database.get(pid) ?? 0);
    const database = databaseTicks / ticks;
    const other = Math.max(0, (end.busy - start.busy) / ticks - server - bench - database);
    return { server, serverLoop, database, bench, other };
  };
}

/** Cores busy over `ms` outside the given processes (undefined without /proc). */
async function foreignCores(ownPids: number[], ms: number): Promise<number | undefined> {
  const read = () => {
    try {
      return {
        at: performance.now(),
        busy: machineBusyTicks(),
        own: ownPids.reduce((sum, pid) => sum + processTicks(pid), 0),
      };
    } catch {
      return undefined;
    }
  };
  const start = read();
  await sleep(ms);
  const end = read();
  if (!start || !end) return undefined;
  const ticks = ((end.at - start.at) / 1000) * TICKS_PER_SECOND;
  return Math.max(0, (end.busy - start.busy - (end.own - start.own)) / ticks);
}

/**
 * The bench's patience with other workloads on a shared machine: a budget of seconds, for the whole
 * run, spent waiting for the machine to go quiet before a measurement and repeating measurements that
 * other processes disturbed. Once it is spent, measurements go ahead and the report flags them.
 */
export class QuietGate {
  private spentSec = 0;

  constructor(
    private readonly ownPids: number[],
    private readonly budgetSec: number,
    private readonly say: (line: string) => void,
  ) {}

  private get remainingSec(): number {
    return Math.max(0, this.budgetSec - this.spentSec);
  }

  async waitForQuiet(): Promise<void> {
    let told = false;
    while (this.remainingSec > 0) {
      const cores = await foreignCores(this.ownPids, 500);
      if (cores === undefined || cores < DISTURBED_CORES) return;
      this.spentSec += 0.5;
      if (!told) {
        this.say(
          `  other processes use ${cores.toFixed(2)} cores: waiting (${this.remainingSec.toFixed(0)} s of patience left)`,
        );
      }
      told = true;
    }
  }

  /** Whether to measure again: other processes disturbed it and the budget pays for another go. */
  retry(use: CpuUse | undefined, costSec: number): boolean {
    if (!use || use.other <= DISTURBED_CORES || this.remainingSec < costSec) return false;
    this.spentSec += costSec;
    this.say(`  disturbed (other processes used ${use.other.toFixed(2)} cores): measuring again`);
    return true;
  }
}
