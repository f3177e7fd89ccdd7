import { describe, expect, test } from '@jest/globals';
import { createRequire } from 'node:module';
import { cacheValidatorRouteLookup } from '../../server/http/route-lookup-cache.js';

type Compiled = { regexp: RegExp; keys: { name: string }[] };

describe("the validator's route lookup cache", () => {
  test('when the validator compiles a route again, then it gets the same compiled pattern, which still matches', () => {
    cacheValidatorRouteLookup();
    const require = createRequire(import.meta.url);
    const fromValidator = createRequire(require.resolve('express-openapi-validator'));
    const { pathToRegexp } = fromValidator('path-to-regexp') as { pathToRegexp: (path: string, options?: object) => Compiled };
    const first = pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false });
    expect(pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false })).toBe(first);
    expect(first.regexp.exec('/v1/vouchers/SUMMER-1')?.[1]).toBe('SUMMER-1');
    expect(first.regexp.exec('/v1/vouchers/SUMMER-2')?.[1]).toBe('SUMMER-2');
    expect(first.keys.map((key) => key.name)).toEqual(['code']);
    // Other options are another pattern: case-sensitive matching refuses what the insensitive one takes.
    const sensitive = pathToRegexp('/v1/vouchers/:code', { sensitive: true, strict: false });
    expect(sensitive).not.toBe(first);
    expect(first.regexp.test('/V1/vouchers/A')).toBe(true);
    expect(sensitive.regexp.test('/V1/vouchers/A')).toBe(false);
  });
});
