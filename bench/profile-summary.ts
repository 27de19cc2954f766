import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Summarises a V8 .cpuprofile (BENCH_CPU_PROF=1 writes one per run of the app child):
//   npx tsx bench/profile-summary.ts [file.cpuprofile | directory]   (default: newest in .bench/profiles)
// Prints where the busy (non-idle) time went: by package or source file, self and inclusive, and the
// hottest functions.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The newest main-thread profile (CPU.<date>.<time>.<pid>.0.<seq>; thread 1 is tsx's loader). */
function newestProfile(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const files = readdirSync(target)
    .filter((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name))
    .map((name) => path.join(target, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!files[0]) throw new Error(`no .cpuprofile in ${target}`);
  return files[0];
}

/** A package under node_modules, a file of ours, a node: module, or V8's pseudo-frames. */
function categoryOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const src = url.indexOf('/src/');
  return src !== -1 ? url.slice(src + 1) : url.replace(/^file:\/\//, '');
}

/** The file, shortened to its package (or src/...) and its path inside it. */
function locationOf(node: ProfileNode): string {
  const { url } = node.callFrame;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return url.slice(modules + '/node_modules/'.length).replace('/dist/', '/…/');
  return url ? categoryOf(node) : '(native)';
}

const IDLE = new Set(['(idle)', '(program)']);

function summarise(file: string, top: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    if (!node) return;
    const category = categoryOf(node);
    if (IDLE.has(category)) {
      idle += micros;
      return;
    }
    busy += micros;
    self.set(category, (self.get(category) ?? 0) + micros);
    const { functionName, lineNumber } = node.callFrame;
    const where = `${functionName || '(anonymous)'} ${locationOf(node)}:${lineNumber + 1}`;
    functions.set(where, (functions.get(where) ?? 0) + micros);
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor);
      if (!frame?.callFrame.url) continue;
      const frameCategory = categoryOf(frame);
      if (seen.has(frameCategory)) continue;
      seen.add(frameCategory);
      inclusive.set(frameCategory, (inclusive.get(frameCategory) ?? 0) + micros);
    }
  });

  const pct = (micros: number) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%`;
  const ms = (micros: number) => `${(micros / 1000).toFixed(0).padStart(7)} ms`;
  const list = (title: string, entries: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`  ${pct(micros)} ${ms(micros)}  ${name}\n`);
    }
  };
  process.stdout.write(
    `${file}\nbusy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (percentages are of busy time)\n`,
  );
  list('Self time by package / file', self);
  list('Inclusive time by package / file (a sample counts once per package on its stack)', inclusive);
  list('Hottest functions (self time)', functions);
}

const target = process.argv[2] ?? path.join(process.cwd(), '.bench', 'profiles');
summarise(newestProfile(target), Number(process.env['TOP'] ?? 25));
