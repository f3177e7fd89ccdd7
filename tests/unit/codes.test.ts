import { describe, expect, test } from '@jest/globals';
import { capacity, generateCodes, resolveCodeConfig } from '../../server/domain/codes.js';

describe('code generation', () => {
  test('patterns, prefixes and charsets shape every code', () => {
    const config = resolveCodeConfig({ pattern: 'AB-##', charset: 'XY', prefix: 'P', postfix: 'Q' });
    const codes = generateCodes(config, 4, () => false);
    expect(new Set(codes).size).toBe(4);
    for (const code of codes) expect(code).toMatch(/^PAB-[XY]{2}Q$/);
  });

  test('without a pattern, codes are `length` characters of the charset', () => {
    const codes = generateCodes(resolveCodeConfig({ length: 12, charset: '0123456789' }), 50, () => false);
    for (const code of codes) expect(code).toMatch(/^\d{12}$/);
  });

  test('a space too small, or full of taken codes, is rejected', () => {
    const config = resolveCodeConfig({ pattern: '#', charset: 'AB' });
    expect(capacity(config)).toBe(2);
    expect(() => generateCodes(config, 3, () => false)).toThrow(expect.objectContaining({ key: 'invalid_code_config', details: expect.stringMatching(/can make 2 distinct codes/) }));
    expect(() => generateCodes(config, 2, (code) => code === 'A')).toThrow(expect.objectContaining({ details: expect.stringMatching(/Only 1 of the 2/) }));
    expect(generateCodes(config, 1, (code) => code === 'A')).toEqual(['B']);
  });
});
