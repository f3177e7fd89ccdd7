/** The rules every voucher code meets, and the code configs that could only make codes breaking them. */
import { describe, expect, test } from '@jest/globals';
import { codeProblem, generateCodes, MAX_CODE_LENGTH, resolveCodeConfig } from '../../server/domain/codes.js';
import { DomainError } from '../../server/domain/errors.js';

function refusal(run: () => unknown): { key: string; details: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return { key: error.key, details: error.details };
    throw error;
  }
}

describe('voucher code rules', () => {
  test('when a code is printable, 1 to 100 characters and not reserved, then it follows the rules', () => {
    for (const code of ['SUMMER-7K2Q', 'ÉTÉ-2026', 'GIFT-😀', '__proto', 'Constructor', '...', 'C'.repeat(MAX_CODE_LENGTH), '😀'.repeat(MAX_CODE_LENGTH)]) {
      expect({ code, problem: codeProblem(code) }).toEqual({ code, problem: undefined });
    }
  });

  test('when a code is empty, too long, holds a character no code may hold, or is reserved, then the problem is named', () => {
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['C'.repeat(MAX_CODE_LENGTH + 1), /longer than 100/],
      ['\u0000', /U\+0000/],
      ['A\u007FB', /U\+007F/],
      ['A\u0085B', /U\+0085/],
      ['A\u200BB', /U\+200B/],
      ['\u202EKCAB', /U\+202E/],
      ['\uFEFFA', /U\+FEFF/],
      ['A B', /U\+0020/],
      ['A/B', /"\/"/],
      ['100%', /"%"/],
      ['.', /reserved/],
      ['..', /reserved/],
      ['__proto__', /reserved/],
      ['constructor', /reserved/],
      ['prototype', /reserved/],
    ];
    for (const [code, problem] of cases) expect({ code, problem: codeProblem(code) }).toEqual({ code, problem: expect.stringMatching(problem) });
  });
});

describe('code configs', () => {
  test('when a config would make codes longer than 100 characters, or from characters no code holds, then invalid_code_config', () => {
    const cases: Record<string, unknown>[] = [
      { prefix: 'P'.repeat(64), postfix: 'Q'.repeat(30), length: 7 },
      { pattern: '#'.repeat(101) },
      { charset: 'AB C' },
      { charset: 'AB#' },
      { prefix: 'A\u0000' },
      { postfix: '/' },
      { pattern: '##?##' },
    ];
    for (const config of cases) expect({ config, refused: refusal(() => resolveCodeConfig(config))?.key }).toEqual({ config, refused: 'invalid_code_config' });
    expect(refusal(() => resolveCodeConfig({ prefix: 'P'.repeat(64), postfix: 'Q'.repeat(30), length: 6 }))).toBeUndefined();
    expect(refusal(() => resolveCodeConfig({ pattern: 'SUMMER-####' }))).toBeUndefined();
  });

  test('when a config can make reserved codes, then it never makes them; when it can make nothing else, then invalid_code_config', () => {
    const dots = resolveCodeConfig({ charset: '.', length: 2 });
    expect(refusal(() => generateCodes(dots, 1, () => false))?.key).toBe('invalid_code_config');
    const proto = resolveCodeConfig({ prefix: '__proto', charset: '_a', pattern: '##' });
    const made = generateCodes(proto, 3, () => false);
    expect(made.sort()).toEqual(['__proto_a', '__protoa_', '__protoaa']);
  });
});
