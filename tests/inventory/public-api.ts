/**
 * Reads the public API's field inventory (`tests/inventory/data/`, one fact a line: every operation's
 * parameters, request and response fields, and every webhook payload's fields, with types, enums, formats
 * and limits). The coverage check in coverage.ts holds the contract to it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../server/paths.js';

export interface Fact {
  /** `path`, `query`, `header`, `request`, `response-200`, `payload`… */
  where: string;
  /** Dotted path; `[]` an array item, `{}` a map value, `(body)` the body itself. */
  field: string;
  /** Types without null; empty for `any`. */
  types: string[];
  nullable: boolean;
  required: boolean;
  enumValues?: string[];
  format?: string;
  limits: Record<string, string>;
  open?: boolean;
  notes: Record<string, string>;
}

export interface InventoryOperation {
  method: string;
  path: string;
  operationId: string;
  tag: string;
  deprecated: boolean;
  facts: Fact[];
  errors: string[];
}

export interface InventoryWebhook {
  key: string;
  type: string;
  delivery: string;
  facts: Fact[];
}

/** Where the inventory lives: the copy in the repository, or another one named by PUBLIC_API_INVENTORY. */
export function inventoryDir(): string {
  return process.env.PUBLIC_API_INVENTORY ?? join(packageRoot(), 'tests', 'inventory', 'data');
}

export function hasInventory(dir = inventoryDir()): boolean {
  return existsSync(join(dir, 'operations.txt'));
}

/** `name → values` from enums.txt, following `=` aliases and `+` continuations. */
export function readEnums(dir = inventoryDir()): Map<string, string[]> {
  const enums = new Map<string, string[]>();
  const aliases: [string, string][] = [];
  let last: string | undefined;
  for (const line of readFileSync(join(dir, 'enums.txt'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const [name, count, values] = line.split('\t');
    if (!name || count === undefined) continue;
    if (count === '=') aliases.push([name, values ?? '']);
    else if (count === '+' && last) enums.get(last)!.push(...(values ?? '').split(','));
    else {
      enums.set(name, (values ?? '').split(','));
      last = name;
    }
  }
  for (const [name, canonical] of aliases) enums.set(name, enums.get(canonical) ?? []);
  return enums;
}

function parseFact(line: string, enums: Map<string, string[]>): Fact | undefined {
  const [where, field, type, required, enumText, format, limitsText, open, noteText] = line.split('\t');
  if (!where || field === undefined || type === undefined) return undefined;
  const parts = type.split('|');
  const nullable = parts.includes('null');
  const types = parts.filter((part) => part !== 'null' && part !== 'any');
  let enumValues: string[] | undefined;
  if (enumText) {
    const reference = /^@enums:(.+);n=\d+$/.exec(enumText);
    enumValues = reference ? (enums.get(reference[1]!) ?? []) : enumText.split(',');
  }
  const limits: Record<string, string> = {};
  for (const limit of (limitsText ?? '').split(';')) {
    const at = limit.indexOf('=');
    if (at > 0) limits[limit.slice(0, at)] = limit.slice(at + 1);
  }
  const notes: Record<string, string> = {};
  for (const note of (noteText ?? '').split(';')) {
    if (!note) continue;
    const at = note.indexOf('=');
    if (at > 0) notes[note.slice(0, at)] = note.slice(at + 1);
    else notes[note] = '';
  }
  return {
    where,
    field,
    types,
    nullable,
    required: required === 'yes',
    ...(enumValues && { enumValues }),
    ...(format && { format }),
    limits,
    ...(open === 'yes' ? { open: true } : open === 'no' ? { open: false } : {}),
    notes,
  };
}

export function readOperations(dir = inventoryDir()): InventoryOperation[] {
  const enums = readEnums(dir);
  const operations: InventoryOperation[] = [];
  for (const block of readFileSync(join(dir, 'operations.txt'), 'utf8').split(/\n(?=## )/)) {
    const lines = block.split('\n');
    const head = /^## (\w+) (\S+)\s+\(([^;)]+);\s*([^;)]+)(;\s*deprecated)?\)/.exec(lines[0] ?? '');
    if (!head) continue;
    const operation: InventoryOperation = {
      method: head[1]!.toLowerCase(),
      path: head[2]!,
      operationId: head[3]!.trim(),
      tag: head[4]!.trim(),
      deprecated: Boolean(head[5]),
      facts: [],
      errors: [],
    };
    for (const line of lines.slice(1)) {
      if (line.startsWith('errors: ')) operation.errors = line.slice(8).split(',').map((code) => code.trim());
      else if (line.startsWith('security:') || !line.includes('\t')) continue;
      else {
        const fact = parseFact(line, enums);
        if (fact) operation.facts.push(fact);
      }
    }
    operations.push(operation);
  }
  return operations;
}

export function readWebhooks(dir = inventoryDir()): InventoryWebhook[] {
  const enums = readEnums(dir);
  const webhooks: InventoryWebhook[] = [];
  for (const block of readFileSync(join(dir, 'webhooks.txt'), 'utf8').split(/\n(?=## )/)) {
    const lines = block.split('\n');
    const head = /^## (\S+)\s+\(([^;)]+);.*delivery=([^;)]+)/.exec(lines[0] ?? '');
    if (!head) continue;
    const facts = lines
      .slice(1)
      .filter((line) => line.includes('\t'))
      .map((line) => parseFact(line, enums))
      .filter((fact): fact is Fact => fact !== undefined);
    webhooks.push({ key: head[1]!, type: head[2]!.trim(), delivery: head[3]!.trim(), facts });
  }
  return webhooks;
}
