import { describe, expect, jest, test } from '@jest/globals';
import { createRequire } from 'node:module';
import { leadingSegments, patchValidator } from '../../server/http/validator-patches.js';

type Compiled = { regexp: RegExp; keys: { name: string }[] };

const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));

describe("the validator's route lookup cache", () => {
  test('when the validator compiles a route again, then it gets the same compiled pattern, which still matches', () => {
    patchValidator();
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
    // Options beyond the two the validator passes are compiled for themselves, and kept too.
    const open = pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false, end: false });
    expect(open).not.toBe(first);
    expect(pathToRegexp('/v1/vouchers/:code', { sensitive: false, strict: false, end: false })).toBe(open);
    expect(open.regexp.test('/v1/vouchers/A/redemption')).toBe(true);
    expect(first.regexp.test('/v1/vouchers/A/redemption')).toBe(false);
  });
});

describe("the validator's parsing of JSON query values", () => {
  type Request = Record<string, Record<string, unknown>>;
  const { RequestParameterMutator } = fromValidator('./middlewares/parsers/req.parameter.mutator') as {
    RequestParameterMutator: { prototype: { parseJsonAndMutateRequest(req: Request, where: string, name: string): void } };
  };
  const parse = (value: unknown) => {
    patchValidator();
    const req: Request = { query: { filters: value } };
    RequestParameterMutator.prototype.parseJsonAndMutateRequest.call(undefined, req, 'query', 'filters');
    return req.query!.filters;
  };

  test('when a query value is JSON text, then it is still parsed', () => {
    expect(parse('{"junction":"or"}')).toEqual({ junction: 'or' });
  });

  test('when a query value is already an object, then it is left as it is, without a parse that can only throw', () => {
    const value = { junction: 'and' };
    const jsonParse = jest.spyOn(JSON, 'parse');
    try {
      expect(parse(value)).toBe(value);
      expect(jsonParse).not.toHaveBeenCalled();
    } finally {
      jsonParse.mockRestore();
    }
  });

  test('when a query value is text that is not JSON, or an array, then the library does what it always did', () => {
    expect(parse('not json')).toBe('not json');
    // The library reads an array as its comma-joined text.
    expect(parse(['{"junction":"or"}'])).toEqual({ junction: 'or' });
  });
});

describe('the leading segments a request is narrowed by', () => {
  test('when a path has two segments or more, then its first two are the key, lowercased', () => {
    expect(leadingSegments('/v1/vouchers')).toBe('v1/vouchers');
    expect(leadingSegments('/V1/Vouchers/SUMMER-1/redemption')).toBe('v1/vouchers');
    expect(leadingSegments('/client/v1/events')).toBe('client/v1');
  });

  test('when a path has fewer than two segments, is not absolute or has text beyond ASCII, then there is no key', () => {
    expect(leadingSegments('/v1')).toBeUndefined();
    expect(leadingSegments('v1/vouchers')).toBeUndefined();
    expect(leadingSegments('http://host/v1/vouchers')).toBeUndefined();
    // The Kelvin sign lowercases to an ASCII k, which a case-insensitive pattern does not take for one.
    expect(leadingSegments('/v1/\u212Aeys')).toBeUndefined();
  });
});
