/**
 * Voucher code generation from a code config: `pattern` with `#` placeholders (or `length` random
 * characters), drawn from `charset`, between `prefix` and `postfix`.
 */
import { randomInt } from 'node:crypto';
import { invalid } from './errors.js';

export const DEFAULT_CHARSET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const DEFAULT_LENGTH = 8;

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

/** The config with defaults filled in. The API types `length` as a number; a fraction is rounded down. */
export function resolveCodeConfig(config: CodeConfig | null = {}): ResolvedCodeConfig {
  config ??= {};
  return {
    length: Math.floor(config.length ?? DEFAULT_LENGTH),
    charset: [...new Set(config.charset ?? DEFAULT_CHARSET)].join(''),
    ...(config.pattern !== undefined && { pattern: config.pattern }),
    prefix: config.prefix ?? '',
    postfix: config.postfix ?? '',
  };
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
export function generateCodes(config: ResolvedCodeConfig, count: number, taken: (code: string) => boolean): string[] {
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
