// Preloaded into every Node.js process of a test run (scripts/test.mjs puts `--import` of this file in
// NODE_OPTIONS and sets BAAS_LIFELINE_PIDS to its own pid). A process exits once any process it
// descends from within the run has died: a test file SIGKILLed by its runner, or a runner killed by a
// timeout or Ctrl-C, can run no after() hook, and a server it started would otherwise keep its port,
// its PostgreSQL connections and its temp folder for as long as the machine runs. Each process passes
// the list on with itself added, so a server started through bash or npm still knows its test file.
// Nothing is registered with node:test: a preload that adds hooks makes it report wrong locations.
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

export const VARIABLE = 'BAAS_LIFELINE_PIDS';
const POLL_MS = 250;

/** The start time of `pid` in clock ticks since boot (Linux), so that a reused pid is not taken for its owner. */
export function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null; // a zombie has died already
    return fields[19] ?? '';
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ESRCH') return null;
    return ''; // no /proc here: fall back to signal 0
  }
}

function alive({ pid, start }) {
  const now = startTime(pid);
  if (now === null) return false;
  if (now !== '' && start !== '' && now !== start) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Whether this process leads its own process group (a server spawned with `detached: true`). */
function leadsGroup() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === process.pid;
  } catch {
    return false;
  }
}

const inherited = process.env[VARIABLE];
if (inherited !== undefined && isMainThread) {
  const owners = inherited
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [pid, start = ''] = entry.split(':');
      return { pid: Number(pid), start };
    })
    .filter((owner) => Number.isInteger(owner.pid) && owner.pid > 0 && owner.pid !== process.pid);
  const parent = process.ppid;
  process.env[VARIABLE] = [
    ...owners.map((o) => `${o.pid}:${o.start}`),
    `${process.pid}:${startTime(process.pid) ?? ''}`,
  ].join(',');

  const timer = setInterval(() => {
    const dead = process.ppid !== parent ? { pid: parent } : owners.find((owner) => !alive(owner));
    if (!dead) return;
    clearInterval(timer);
    process.stderr.write(
      `lifeline: process ${dead.pid}, which started this one (pid ${process.pid}), has died; exiting\n`,
    );
    // Registered last, so that the other exit listeners (Playwright killing its browser) run first.
    if (leadsGroup()) {
      process.on('exit', () => {
        try {
          process.kill(-process.pid, 'SIGKILL');
        } catch {
          // Nothing else in the group.
        }
      });
    }
    process.exit(70);
  }, POLL_MS);
  timer.unref();
}
