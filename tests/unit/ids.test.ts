import { describe, expect, test } from '@jest/globals';
import { newId, randomBase64url, randomHex } from '../../server/domain/ids.js';

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
});
