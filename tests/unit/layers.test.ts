/**
 * The import arrows between layers run one way: the store knows nothing of the domain (or of anything else
 * in the server), and the domain knows nothing of HTTP, the handlers or the app that composes them.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => join(folder, name));
}

/** Every module a file names: static imports and re-exports, dynamic imports, requires. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const pattern of [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const match of text.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** The repository path a relative import of `file` names, or undefined for a package or a node built-in. */
function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return undefined;
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(sep).join('/');
}

describe('layers', () => {
  test('nothing under server/store imports anything outside server/store but node built-ins and packages', () => {
    const files = sourcesUnder('server/store');
    const crossings: string[] = [];
    let relativeImports = 0;
    for (const file of files) {
      for (const specifier of importsOf(file)) {
        const path = target(file, specifier);
        // A package or a node built-in.
        if (path === undefined) continue;
        relativeImports++;
        if (!path.startsWith('server/store/')) crossings.push(`${file} → ${specifier}`);
      }
    }
    // The check reads what it means to: the store's own modules import one another.
    expect(files).toEqual(expect.arrayContaining(['server/store/memory.ts', 'server/store/store.ts']));
    expect(relativeImports).toBeGreaterThan(3);
    expect(crossings).toEqual([]);
  });

  test('nothing under server/domain imports the HTTP layer, the handlers or the app', () => {
    const forbidden = ['server/http/', 'server/handlers/', 'server/app.'];
    const crossings: string[] = [];
    for (const file of sourcesUnder('server/domain')) {
      for (const specifier of importsOf(file)) {
        const path = target(file, specifier);
        if (path !== undefined && forbidden.some((prefix) => path.startsWith(prefix))) crossings.push(`${file} → ${specifier}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  test('the import reader finds every kind of import, so a crossing cannot hide from it', () => {
    expect(importsOf('server/store/memory.ts')).toEqual(expect.arrayContaining(['async-mutex', './evaluate.js', './store.js']));
    expect(importsOf('server/domain/schema.ts')).toEqual(expect.arrayContaining(['../store/store.js', './customers.js']));
    expect(target('server/store/memory.ts', '../domain/schema.js')).toBe('server/domain/schema.js');
    expect(target('server/store/memory.ts', 'node:fs')).toBeUndefined();
  });
});
