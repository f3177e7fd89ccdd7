/**
 * Voucher codes: the rules every code meets, whoever chose it, and generation from a code config:
 * `pattern` with `#` placeholders (or `length` random characters), drawn from `charset`, between `prefix`
 * and `postfix`.
 */
import { randomInt } from 'node:crypto';
import { invalid } from './errors.js';

export const DEFAULT_CHARSET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const DEFAULT_LENGTH = 8;
export const MAX_CODE_LENGTH = 100;

/**
 * Characters no code holds: whitespace, control and invisible formatting characters (a code must read and
 * print as what it is), and the URL delimiters `/ ? # %` (a code is a path segment of `/v1/vouchers/{code}`).
 * The contract states the same class (components/schemas/VoucherCode.yaml).
 */
const NOT_IN_CODES = /[\s\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u206F/?#%]/;

/**
 * Codes that are refused, however made: `.` and `..` name other paths once in a URL, and the names
 * JavaScript objects inherit would alias a prototype if a code ever became a plain object's key.
 */
export const RESERVED_CODES: ReadonlySet<string> = new Set(['.', '..', '__proto__', 'constructor', 'prototype']);

/** What is wrong with a code, or undefined when it follows the rules. */
export function codeProblem(code: string): string | undefined {
  const length = [...code].length;
  if (length === 0) return 'is empty';
  if (length > MAX_CODE_LENGTH) return `is longer than ${MAX_CODE_LENGTH} characters`;
  const bad = NOT_IN_CODES.exec(code);
  if (bad) return `holds ${JSON.stringify(bad[0])} (U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), which no code may hold`;
  if (RESERVED_CODES.has(code)) return 'is reserved';
  return undefined;
}

/** Refuses a code a client gave that breaks the rules (the contract's validator refuses it first). */
export function checkCode(code: string): void {
  const problem = codeProblem(code);
  if (problem) throw invalid('invalid_voucher', 'Invalid voucher', `Code ${JSON.stringify(code)} ${problem}`);
}

export interface CodeConfig {
  length?: number;
  charset?: string;
  pattern?: string;
  prefix?: string;
  postfix?: string;
  initial_count?: number;
}

export interface ResolvedCodeConfig {
  length: number;
  charset: string;
  pattern?: string;
  prefix: string;
  postfix: string;
}

/**
 * The config with defaults filled in. The API types `length` as a number; a fraction is rounded down.
 * Refuses a config whose codes would break the code rules: a character no code holds, or codes longer than
 * MAX_CODE_LENGTH (JSON Schema bounds each part, not their sum).
 */
export function resolveCodeConfig(config: CodeConfig | null = {}): ResolvedCodeConfig {
  config ??= {};
  const resolved: ResolvedCodeConfig = {
    length: Math.floor(config.length ?? DEFAULT_LENGTH),
    charset: [...new Set(config.charset ?? DEFAULT_CHARSET)].join(''),
    ...(config.pattern !== undefined && { pattern: config.pattern }),
    prefix: config.prefix ?? '',
    postfix: config.postfix ?? '',
  };
  const parts: [string, string][] = [
    ['charset', resolved.charset],
    ['prefix', resolved.prefix],
    ['postfix', resolved.postfix],
    ['pattern', (resolved.pattern ?? '').replaceAll('#', '')],
  ];
  for (const [name, text] of parts) {
    const bad = NOT_IN_CODES.exec(text);
    if (bad) throw invalid('invalid_code_config', 'Invalid code config', `The code config's ${name} holds ${JSON.stringify(bad[0])}, which no code may hold`);
  }
  const longest = [...resolved.prefix].length + [...template(resolved)].length + [...resolved.postfix].length;
  if (longest > MAX_CODE_LENGTH) {
    throw invalid('invalid_code_config', 'Invalid code config', `The code config makes codes of ${longest} characters; at most ${MAX_CODE_LENGTH} are allowed`);
  }
  return resolved;
}

function template(config: ResolvedCodeConfig): string {
  return config.pattern ?? '#'.repeat(config.length);
}

/** How many distinct codes the config can make. */
export function capacity(config: ResolvedCodeConfig): number {
  const slots = [...template(config)].filter((c) => c === '#').length;
  return Math.pow(config.charset.length, slots);
}

function randomCode(config: ResolvedCodeConfig): string {
  const chars = [...config.charset];
  const body = [...template(config)].map((c) => (c === '#' ? chars[randomInt(chars.length)] : c)).join('');
  return `${config.prefix}${body}${config.postfix}`;
}

/** The n-th code in the config's space, for enumerating small spaces. */
function codeAt(config: ResolvedCodeConfig, index: number): string {
  const chars = [...config.charset];
  const slots = [...template(config)];
  let rest = index;
  const body = slots
    .reverse()
    .map((c) => {
      if (c !== '#') return c;
      const char = chars[rest % chars.length];
      rest = Math.floor(rest / chars.length);
      return char;
    })
    .reverse()
    .join('');
  return `${config.prefix}${body}${config.postfix}`;
}

/**
 * Makes `count` distinct codes that `taken` does not hold. Rejects the config when its space cannot
 * hold that many new codes.
 */
export function generateCodes(config: ResolvedCodeConfig, count: number, takenBefore: (code: string) => boolean): string[] {
  // A reserved code counts as taken: a space that holds nothing else (charset `.`, length 2) makes none.
  const taken = (code: string) => RESERVED_CODES.has(code) || takenBefore(code);
  const space = capacity(config);
  if (space < count) {
    throw invalid(
      'invalid_code_config',
      'Invalid code config',
      `The code config can make ${space} distinct codes, fewer than the ${count} requested`,
    );
  }
  const codes = new Set<string>();
  if (space <= 100_000 && count * 2 > space) {
    // Dense request in a small space: walk the whole space in random order.
    const order = Array.from({ length: space }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const code = codeAt(config, index);
      if (!taken(code)) codes.add(code);
      if (codes.size === count) return [...codes];
    }
  } else {
    let misses = 0;
    while (codes.size < count && misses < count * 20 + 1000) {
      const code = randomCode(config);
      if (codes.has(code) || taken(code)) misses++;
      else codes.add(code);
    }
    if (codes.size === count) return [...codes];
  }
  throw invalid(
    'invalid_code_config',
    'Invalid code config',
    `Only ${codes.size} of the ${count} requested codes are free in the code config's space`,
  );
}
