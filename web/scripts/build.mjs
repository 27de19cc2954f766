#!/usr/bin/env node
// Builds both web apps into web/dist/<app>/ (npm run build, npm start, npm test all come here).
// Skips the build when web/dist was made from the same inputs (a hash of web/'s sources, the SDK's
// sources the apps import, and the lockfile), so `npm test` and `npm start` pay for it only after a change; `--force` builds anyway.
// The new dist is built beside the old one and swapped in by rename, so a server or test reading
// web/dist meanwhile never sees a half-written or emptied folder.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const WEB = fileURLToPath(new URL('..', import.meta.url));
const ROOT = path.dirname(WEB.replace(/\/$/, ''));
const DIST = path.join(WEB, 'dist');
const STAMP = path.join(DIST, 'build-stamp.json');
const APPS = ['console', 'dashboard'];
/** What is never an input of the build. */
const SKIP = new Set(['dist', 'node_modules']);

/** @param {string} dir @returns {string[]} */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !SKIP.has(entry.name) && !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? files(full) : [full];
    })
    .sort();
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of [
    ...files(WEB),
    ...files(path.join(ROOT, 'sdk', 'src')),
    path.join(ROOT, 'package-lock.json'),
  ]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function builtHash() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')).inputs;
  } catch {
    return undefined;
  }
}

/**
 * An inline script or style would be refused by the pages' CSP: fail the build instead.
 * @param {string} html @param {string} file
 */
function assertNoInlineCode(html, file) {
  html = html.replace(/<!--[\s\S]*?-->/g, '');
  const inlineScript = /<script\b(?![^>]*\bsrc=)[^>]*>\s*\S/i.test(html);
  const inlineStyle = /<style\b/i.test(html) || /\sstyle=/i.test(html);
  if (inlineScript || inlineStyle) {
    throw new Error(`${file} has inline ${inlineScript ? 'script' : 'style'}, which the page CSP refuses`);
  }
}

/**
 * .br and .gz beside each script and stylesheet, served by @fastify/static to clients that accept them.
 * @param {string} dir
 */
function precompress(dir) {
  for (const file of files(dir).filter((name) => /\.(m?js|css|svg)$/.test(name))) {
    const content = readFileSync(file);
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
  }
}

/** What a visitor loads before they can sign in: `/<app>` itself (its home route), then sign-in. */
const SIGN_IN_ROUTES = ['home', 'sign-in'];

/**
 * The gzipped JavaScript each page of an app loads, from Vite's manifest (which chunks import which)
 * and the .gz files precompress() wrote: the sign-in page, the shell every page loads, what each
 * lazily loaded module adds to the shell, and all of it. test/browser/web-platform.test.ts holds
 * the sign-in page to its budget.
 * @param {string} dir @param {string} app
 */
function bundleReport(dir, app) {
  /** @type {Record<string, { file: string, isEntry?: boolean, isDynamicEntry?: boolean, imports?: string[] }>} */
  const manifest = JSON.parse(readFileSync(path.join(dir, '.vite', 'manifest.json'), 'utf8'));
  /** @param {string[]} keys */
  const closure = (keys) => {
    /** @type {Set<string>} */
    const loaded = new Set();
    /** @param {string} key */
    const visit = (key) => {
      const chunk = manifest[key];
      if (!chunk || loaded.has(chunk.file)) return;
      loaded.add(chunk.file);
      for (const imported of chunk.imports ?? []) visit(imported);
    };
    for (const key of keys) visit(key);
    return loaded;
  };
  /** @param {Iterable<string>} chunks */
  const gzipped = (chunks) =>
    [...chunks].reduce((sum, file) => sum + statSync(path.join(dir, `${file}.gz`)).size, 0);
  const keys = Object.keys(manifest);
  const entry = keys.filter((key) => manifest[key]?.isEntry);
  const shell = closure(entry);
  const signIn = closure([
    ...entry,
    ...SIGN_IN_ROUTES.map(
      (name) => keys.find((key) => key.endsWith(`/apps/${app}/routes/${name}.tsx`)) ?? '',
    ),
  ]);
  const lazy = keys
    .filter((key) => manifest[key]?.isDynamicEntry)
    .map((key) => {
      const added = [...closure([...entry, key])].filter((file) => !shell.has(file));
      return `${path.basename(key).replace(/\.[jt]sx?$/, '')} +${kB(gzipped(added))}`;
    })
    .sort();
  const all = files(path.join(dir, 'assets')).filter((file) => /\.m?js$/.test(file));
  return (
    `web: /${app}: the sign-in page loads ${kB(gzipped(signIn))} of JavaScript (gzip), the shell every page loads ${kB(gzipped(shell))};\n` +
    `  each lazily loaded module adds: ${lazy.join(', ')}; all JavaScript ${kB(all.reduce((sum, file) => sum + statSync(`${file}.gz`).size, 0))}`
  );
}

/** @param {number} bytes */
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

const force = process.argv.includes('--force');
const inputs = inputsHash();
if (!force && APPS.every((app) => existsSync(path.join(DIST, app, 'index.html'))) && builtHash() === inputs) {
  console.log('web: web/dist is up to date');
  process.exit(0);
}

const started = performance.now();
const { build } = await import('vite');
const staging = path.join(WEB, `.build-${process.pid}`);
/** @type {string[]} */
const reports = [];
rmSync(staging, { recursive: true, force: true });
try {
  for (const app of APPS) {
    // vite.config.ts reads WEB_APP; Vite loads the config anew for each build.
    process.env['WEB_APP'] = app;
    await build({
      configFile: path.join(WEB, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: path.join(staging, app) },
    });
    const index = path.join(staging, app, 'index.html');
    assertNoInlineCode(readFileSync(index, 'utf8'), path.relative(ROOT, index));
    precompress(path.join(staging, app, 'assets'));
    reports.push(bundleReport(path.join(staging, app), app));
  }
  writeFileSync(
    path.join(staging, 'build-stamp.json'),
    `${JSON.stringify({ inputs, built_at: new Date().toISOString() })}\n`,
  );
  const old = path.join(WEB, `.old-${process.pid}`);
  if (existsSync(DIST)) renameSync(DIST, old);
  try {
    renameSync(staging, DIST);
  } catch (error) {
    // Another build swapped its dist in meanwhile: from the same inputs, so keep that one.
    if (!existsSync(DIST)) throw error;
  }
  rmSync(old, { recursive: true, force: true });
} finally {
  rmSync(staging, { recursive: true, force: true });
}
console.log(
  `web: ${APPS.join(' and ')} built into web/dist in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
for (const report of reports) console.log(report);
