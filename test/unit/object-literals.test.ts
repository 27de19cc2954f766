/**
 * On Node 20 (V8 11.3) an object literal that starts with a spread and goes on with more members takes
 * a slow path: every object gets a hidden class (map) of its own, made at run time. GET business-info
 * spent a third of its instructions there before the pattern was removed from it. Code that runs per
 * request writes `extend(base, {…})` (src/platform/objects.ts) or a plain literal instead; this test
 * keeps it that way.
 *
 * The measurement is bench/object-spread.mjs (bench/README.md): CPU time per object of 10 members + 1,
 * medians of 21 rounds of 300,000 after a 3 s warm-up, a fresh process per shape. Node 20.20.2:
 * `{ ...base, added }` 865 ns and a map per object, `extend(base, { added })` 108 ns, the plain literal
 * 14 ns. Node 22.23.3 (V8 12.4) has no slow path: the spread takes 39 ns and shares one map, and
 * extend() is the slower one (118 ns). When package.json's engines leaves Node 20, this rule and
 * extend() go.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { extend } from '../../src/platform/objects.js';

/** Evaluated once, at start-up: schema modules (TypeBox compositions), the configuration, the wiring. */
const STARTUP_ONLY = [/\.schemas\.ts$/, /^src\/app\.ts$/, /^src\/config\.ts$/];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** `file:line: text` of every object literal that starts with a spread and has more members. */
function leadingSpreads(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isObjectLiteralExpression(node) &&
      node.properties.length > 1 &&
      ts.isSpreadAssignment(node.properties[0]!)
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('object literals in request-time code', () => {
  it('never start with a spread followed by more members', () => {
    const files = sourceFiles('src').filter((file) => !STARTUP_ONLY.some((pattern) => pattern.test(file)));
    assert.ok(files.length > 50, `${files.length} files scanned`);
    assert.deepEqual(files.flatMap(leadingSpreads), []);
  });

  it('finds the pattern where it is (the check itself)', () => {
    const probe = path.join('test', 'unit', 'object-literals.test.ts');
    const text = readFileSync(probe, 'utf8');
    // This file holds one on purpose, below.
    assert.match(text, /const spreadFirst = \{ \.\.\.base2, added: 1 \}/);
    assert.equal(leadingSpreads(probe).length, 1);
  });

  it('extend() is the spread: fields win, the base is left alone, symbols are copied', () => {
    const symbol = Symbol('kind');
    const base = { a: 1, b: 2, [symbol]: 'x' };
    const extended = extend(base, { b: 3, c: 4 });
    assert.deepEqual(extended, { a: 1, b: 3, c: 4, [symbol]: 'x' });
    assert.deepEqual(base, { a: 1, b: 2, [symbol]: 'x' });
    const base2 = { a: 1 };
    const spreadFirst = { ...base2, added: 1 };
    assert.deepEqual(extend(base2, { added: 1 }), spreadFirst);
  });
});
