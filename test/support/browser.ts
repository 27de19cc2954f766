import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

/*
 * Real Chromium driven by playwright-core: Debian's package (/usr/bin/chromium, which .ci/run
 * installs when it is missing), not a browser build of Playwright's own, which cannot be downloaded
 * here. CHROMIUM_PATH points elsewhere.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SCREENSHOT_DIR = path.join(ROOT, 'test-output', 'screenshots');

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Playwright's own SIGINT/SIGTERM/SIGHUP handlers are off: its SIGTERM and SIGHUP handlers close the
 * browser but keep the process alive, so a runner's SIGTERM would not end a test file. Chromium runs
 * in a process group of its own and ends when its DevTools pipe closes with this process (and
 * scripts/test.mjs kills whatever of the run is left).
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface CspViolation {
  directive: string;
  blockedUri: string;
  sourceFile: string;
  line: number;
}

export interface RecordedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions, in order. */
  errors: string[];
  /** `securitypolicyviolation` events the page saw. */
  cspViolations: CspViolation[];
  /** Fails with the list when the page logged an error or the CSP refused anything. */
  assertClean(what: string): void;
  close(): Promise<void>;
}

export interface NewPageOptions {
  /** Viewport width in CSS pixels (height 900); 1280 unless given. */
  width?: number;
  /** The browser's locale (navigator.language, Intl's default, Accept-Language); Chromium's unless given. */
  locale?: string;
  /**
   * HTTP statuses the page answers itself (a 401 before sign-in, a refused decision): Chrome logs
   * every fetch answered 4xx as a console error ("Failed to load resource"), which is then not
   * recorded for these statuses.
   */
  handledStatuses?: number[];
}

const FAILED_RESOURCE = /^Failed to load resource: the server responded with a status of (\d{3})\b/;

/**
 * A page in a fresh context (no shared cookies or cache) whose console errors, uncaught exceptions
 * and CSP violations are recorded, so a test can assert none happened.
 */
export async function newPage(
  browser: Browser,
  baseUrl: string,
  options: NewPageOptions = {},
): Promise<RecordedPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: options.width ?? 1280, height: 900 },
    ...(options.locale ? { locale: options.locale } : {}),
  });
  const errors: string[] = [];
  const cspViolations: CspViolation[] = [];
  // A binding and an init script run through the DevTools protocol, outside the page's CSP.
  await context.exposeBinding('__reportCspViolation', (_source, violation: CspViolation) => {
    cspViolations.push(violation);
  });
  await context.addInitScript(`
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__reportCspViolation({
        directive: event.effectiveDirective,
        blockedUri: event.blockedURI,
        sourceFile: event.sourceFile,
        line: event.lineNumber,
      });
    });
  `);
  const page = await context.newPage();
  const handled = new Set(options.handledStatuses ?? []);
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = FAILED_RESOURCE.exec(message.text())?.[1];
    if (status !== undefined && handled.has(Number(status))) return;
    errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return {
    page,
    context,
    errors,
    cspViolations,
    assertClean(what) {
      assert.deepEqual(cspViolations, [], `${what}: the CSP refused something`);
      assert.deepEqual(errors, [], `${what}: the page logged errors`);
    },
    close: () => context.close(),
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** Runs axe-core on the page as it is and fails on any serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol: a <script> tag with axe's source would be inline code,
  // which the page's CSP refuses.
  const loaded = await page.evaluate('typeof window.axe');
  if (loaded === 'undefined') await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(
    'window.axe.run(document).then((results) => results.violations)',
  );
  const blocking = violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  const report = blocking
    .map(
      (violation) =>
        `- ${violation.id} (${violation.impact}): ${violation.help}\n  ${violation.helpUrl}\n` +
        violation.nodes
          .map((node) => `    at ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`.trimEnd())
          .join('\n'),
    )
    .join('\n');
  assert.equal(blocking.length, 0, `${what}: axe-core found serious or critical violations:\n${report}`);
}

/** A full-page PNG under test-output/screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

/**
 * Whether the text inside `element` is laid out in the order it is stored: each character of a
 * line to the right of the one before. A right-to-left override applied to "detimil deviorppa"
 * would draw it as "approved limited", its characters right to left.
 */
export function readsInOrder(element: Locator): Promise<boolean> {
  // Run in the page (the tests' types have no DOM: what is used is described by hand).
  return element.evaluate((root) => {
    type Rect = { left: number; top: number; width: number };
    type Node = { nodeType: number; textContent: string | null; childNodes: ArrayLike<Node> };
    const doc = (
      globalThis as unknown as {
        document: {
          createRange(): {
            setStart(n: Node, o: number): void;
            setEnd(n: Node, o: number): void;
            getBoundingClientRect(): Rect;
          };
        };
      }
    ).document;
    // A loop, not a nested function: tsx would wrap a named one in a helper the page lacks.
    const texts: Node[] = [];
    const pending: Node[] = [root as unknown as Node];
    while (pending.length > 0) {
      const node = pending.shift()!;
      if (node.nodeType === 3) texts.push(node);
      pending.unshift(...Array.from(node.childNodes));
    }
    let previous: Rect | null = null;
    for (const text of texts) {
      for (let i = 0; i < (text.textContent ?? '').length; i += 1) {
        if ((text.textContent ?? '')[i] === ' ') continue;
        const range = doc.createRange();
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        const rect = range.getBoundingClientRect();
        if (rect.width === 0) continue;
        if (previous && Math.abs(rect.top - previous.top) < 2 && rect.left < previous.left) return false;
        previous = rect;
      }
    }
    return true;
  });
}

/**
 * The date field labelled `label` inside `scope` (a segmented React Aria date field, one spin
 * button each for day, month and year, in the page's locale order).
 */
export function dateField(scope: Page | Locator, label: string): Locator {
  return scope.getByRole('group', { name: label, exact: true });
}

/** Types `iso` (YYYY-MM-DD) into a date field, segment by segment, whatever their order. */
export async function fillDate(field: Locator, iso: string): Promise<void> {
  const [year, month, day] = iso.split('-') as [string, string, string];
  const parts: Record<string, string> = { year, month, day };
  const segments = field.locator('[role="spinbutton"]');
  const count = await segments.count();
  assert.equal(count, 3, `a date field has day, month and year segments, not ${count}`);
  for (let index = 0; index < count; index++) {
    const segment = segments.nth(index);
    const type = await segment.getAttribute('data-type');
    const text = type ? parts[type] : undefined;
    assert.ok(text, `unexpected date segment ${type}`);
    // A focused segment starts afresh: what is typed replaces its value.
    await segment.focus();
    await segment.pressSequentially(text);
  }
}

/** What a date field holds, as YYYY-MM-DD ('' when incomplete): the value its form submits. */
export async function dateValue(field: Locator): Promise<string> {
  return field.locator('xpath=..').locator('input[hidden]').inputValue();
}

/** The order of a date field's day, month and year segments, as the page's locale lays them out. */
export async function segmentOrder(field: Locator): Promise<string[]> {
  return field
    .locator('[role="spinbutton"]')
    .evaluateAll((segments) => segments.map((segment) => segment.getAttribute('data-type') ?? ''));
}
