/**
 * The import arrows between layers run one way: the store knows nothing of the domain (or of anything else
 * in the server), and the domain knows nothing of HTTP, the handlers or the app that composes them. Within
 * the domain, no module reaches itself through the imports that load code: a module that needs one that
 * builds on it takes a helper from a module of its own, or is told through a listener slot (hooks.ts).
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

interface ImportStatement {
  specifier: string;
  /** Whether it brings in types only, which TypeScript erases: it loads nothing when the program runs. */
  typeOnly: boolean;
}

/** Every module a file names: static imports and re-exports, dynamic imports, requires. */
function importStatementsOf(file: string): ImportStatement[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: ImportStatement[] = [];
  for (const match of text.matchAll(/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)) found.push({ specifier: match[1]!, typeOnly: typeOnly(match[0]) });
  for (const pattern of [/\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const match of text.matchAll(pattern)) found.push({ specifier: match[1]!, typeOnly: false });
  }
  return found;
}

/** The modules a file names, as importStatementsOf reads them. */
function importsOf(file: string): string[] {
  return importStatementsOf(file).map(({ specifier }) => specifier);
}

/** Whether a static import or re-export names types only: `import type …`, or braces that hold nothing but `type X` names. */
function typeOnly(statement: string): boolean {
  if (/^(?:import|export)\s+type\s/.test(statement)) return true;
  const braces = /^(?:import|export)\s*\{([^}]*)\}\s*from\b/.exec(statement)?.[1];
  const names = braces?.split(',').map((name) => name.trim()).filter((name) => name !== '') ?? [];
  return names.length > 0 && names.every((name) => /^type\s/.test(name));
}

/** The repository path a relative import of `file` names, or undefined for a package or a node built-in. */
function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return undefined;
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(sep).join('/');
}

/** The files under a folder and the runtime imports between them (type-only imports left out), each file's own list sorted. */
function runtimeImportGraph(folder: string): { graph: Map<string, string[]>; unresolved: string[] } {
  const files = sourcesUnder(folder);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const imported = new Set<string>();
    for (const statement of importStatementsOf(file)) {
      const path = target(file, statement.specifier);
      if (statement.typeOnly || path === undefined || !path.startsWith(`${folder}/`)) continue;
      // Sources import one another by their compiled names: `./vouchers.js` is `./vouchers.ts`.
      const source = [path, path.replace(/\.js$/, '.ts')].find((candidate) => known.has(candidate));
      if (source === undefined) unresolved.push(`${file} → ${statement.specifier}`);
      else imported.add(source);
    }
    graph.set(file, [...imported].sort());
  }
  return { graph, unresolved };
}

/** The strongly connected components of a graph (Tarjan's algorithm): files that reach one another through imports. */
function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    components.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components;
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

  test('nothing under server/domain is part of a runtime import cycle', () => {
    const { graph, unresolved } = runtimeImportGraph('server/domain');
    const selfImports = [...graph].filter(([file, imported]) => imported.includes(file)).map(([file]) => file);
    const cycles = stronglyConnected(graph).filter((component) => component.length > 1);
    const edges = [...graph.values()].reduce((sum, imported) => sum + imported.length, 0);
    // The check reads what it means to: every import of a domain module resolves to a file, the domain's modules
    // import one another a great deal, and only the imports that load nothing are left out.
    expect(unresolved).toEqual([]);
    expect(edges).toBeGreaterThan(100);
    expect(graph.get('server/domain/loyalty/cards.ts')).toEqual(expect.arrayContaining(['server/domain/loyalty/card-events.ts', 'server/domain/loyalty/tiers.ts']));
    expect(graph.get('server/domain/loyalty/cards.ts')).not.toContain('server/domain/vouchers.ts');
    expect(selfImports).toEqual([]);
    expect(cycles).toEqual([]);
  });

  test('the import reader tells imports of types only, which load nothing, from the others', () => {
    expect(typeOnly("import type { VoucherRecord } from './vouchers.js'")).toBe(true);
    expect(typeOnly("import { type Customer, type CustomerRef } from './customers.js'")).toBe(true);
    expect(typeOnly("export type { Line } from './decide.js'")).toBe(true);
    expect(typeOnly("import { recordEvent, type EventType } from './events.js'")).toBe(false);
    expect(typeOnly("import campaigns, { type CampaignRecord } from './campaigns.js'")).toBe(false);
    expect(typeOnly("import * as engine from './engine.js'")).toBe(false);
    expect(typeOnly("export { simpleCustomer } from './decide.js'")).toBe(false);
    expect(importStatementsOf('server/domain/loyalty/cards.ts')).toEqual(
      expect.arrayContaining([
        { specifier: '../vouchers.js', typeOnly: true },
        { specifier: './tiers.js', typeOnly: false },
      ]),
    );
  });

  test('the import reader finds every kind of import, so a crossing cannot hide from it', () => {
    expect(importsOf('server/store/memory.ts')).toEqual(expect.arrayContaining(['async-mutex', './evaluate.js', './store.js']));
    expect(importsOf('server/domain/schema.ts')).toEqual(expect.arrayContaining(['../store/store.js', './customers.js']));
    expect(target('server/store/memory.ts', '../domain/schema.js')).toBe('server/domain/schema.js');
    expect(target('server/store/memory.ts', 'node:fs')).toBeUndefined();
  });
});
