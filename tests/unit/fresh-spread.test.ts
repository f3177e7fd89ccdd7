/**
 * Object literals that copy an object and add fields to it begin with `...FRESH` (server/store/fresh.ts says
 * why): the copy made is the same object, and every such literal in the server is written that way.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { FRESH } from '../../server/store/fresh.js';

const SERVER = resolve(import.meta.dirname, '../../server');

/** Where a literal begins by spreading something other than FRESH and has more after it, as `file:line`. */
function spreadsFirst(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length >= 2) {
      const first = node.properties[0]!;
      if (ts.isSpreadAssignment(first) && !(ts.isIdentifier(first.expression) && first.expression.text === 'FRESH')) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(first.getStart(source)).line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('FRESH', () => {
  test('a copy begun with it is the copy a plain spread makes', () => {
    const row = JSON.parse('{"id":"v_1","code":"A","__proto__":{"admin":true},"metadata":{"k":1}}') as { id: string; code: string; metadata: Record<string, number> };
    const plain = { ...row, active: false, code: 'B' };
    const fresh = { ...FRESH, ...row, active: false, code: 'B' };
    expect(Object.keys(fresh)).toEqual(Object.keys(plain));
    expect(Object.keys(fresh)).toEqual(['id', 'code', '__proto__', 'metadata', 'active']);
    expect(fresh).toEqual(plain);
    // JSON's own `__proto__` key stays a field: the copy's prototype is the ordinary one.
    expect(Object.getPrototypeOf(fresh)).toBe(Object.prototype);
    expect((fresh as { admin?: unknown }).admin).toBeUndefined();
    // Nested values are shared, as a spread shares them, and the copy can be changed.
    expect(fresh.metadata).toBe(row.metadata);
    expect(Object.isFrozen(fresh)).toBe(false);
    // FRESH itself never takes a field.
    expect(Object.keys(FRESH)).toEqual([]);
    expect(Object.isFrozen(FRESH)).toBe(true);
  });

  test('the check finds a literal that begins with another spread, and passes one that begins with FRESH', () => {
    expect(spreadsFirst('a.ts', 'const a = { ...row, active: false };\nconst b = { ...FRESH, ...row, active: true };\nconst c = { ...row };')).toEqual(['a.ts:1']);
    expect(spreadsFirst('b.ts', 'f({\n  id: 1,\n  ...row,\n});\nconst d = {\n  ...(x && { y: 1 }),\n  z: 2,\n};')).toEqual(['b.ts:6']);
  });

  test('every object literal under server/ that copies an object and adds to it begins with FRESH', () => {
    const files = readdirSync(SERVER, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((name) => spreadsFirst(name, readFileSync(join(SERVER, name), 'utf8')));
    expect(found).toEqual([]);
  });
});
