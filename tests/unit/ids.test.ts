import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { base64urlOf, hexOf, newId, randomBase64url, randomHex } from '../../server/domain/ids.js';

describe('random IDs', () => {
  test('when many IDs are made, past several refills of the random pool, then each has its form and none repeats', () => {
    const ids = Array.from({ length: 5000 }, () => newId('prod'));
    for (const id of ids) expect(id).toMatch(/^prod_[0-9a-f]{18}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('when random hex is asked for, then it has two digits per byte, and a request larger than the pool is refused', () => {
    expect(randomHex(10)).toMatch(/^[0-9a-f]{20}$/);
    expect(randomHex(4096)).toHaveLength(8192);
    expect(() => randomHex(4097)).toThrow(RangeError);
  });

  test('when random base64url is asked for, then four characters stand for three bytes, unpadded, and the pool hands no byte out twice', () => {
    expect(randomBase64url(9)).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(randomBase64url(4096)).toHaveLength(5462);
    expect(() => randomBase64url(4097)).toThrow(RangeError);
    const drawn = Array.from({ length: 3000 }, () => randomBase64url(9));
    expect(new Set(drawn).size).toBe(drawn.length);
  });

  test('when any bytes are encoded, from any position to any other, then the text is the one Buffer writes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const from = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const to = from + (bytes.length - from === 0 ? 0 : b % (bytes.length - from + 1));
        const buffer = Buffer.from(bytes);
        expect([hexOf(bytes, from, to), base64urlOf(bytes, from, to)]).toEqual([buffer.toString('hex', from, to), buffer.toString('base64url', from, to)]);
      }),
      { numRuns: 2000 },
    );
  });
});
