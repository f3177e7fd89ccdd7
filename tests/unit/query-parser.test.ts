/**
 * The app's query parser reads every query to what Express's `extended` parser (qs with prototype keys
 * allowed) reads it to, whether it takes the quick way (names and values only) or hands the query to qs.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import qs from 'qs';
import { parseQuery } from '../../server/http/query-parser.js';

const extended = (text: string) => qs.parse(text, { allowPrototypes: true });

/**
 * The same reading: the same names in the same order, the same values and arrays, and the same prototype.
 * (Compared as JSON text: Jest's equality takes an own `constructor` name for the object's type.)
 */
function expectSameReading(text: string) {
  const ours = parseQuery(text);
  const theirs = extended(text);
  expect([text, JSON.stringify(ours)]).toEqual([text, JSON.stringify(theirs)]);
  expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs));
}

/** Names, including the ones where qs and a plain reading could part: empty, Object.prototype's, bracketed. */
const name = fc.oneof(
  fc.constantFrom('limit', 'page', 'campaign_id', 'a', 'a.b', 'x-y', '', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'filters[code][conditions][$in]', 'ids[]', 'a[0]'),
  fc.stringMatching(/^[a-z_.~*!'()+,;:@$-]{1,6}$/),
);
const value = fc.oneof(fc.constantFrom('', '10', 'camp_1', 'a+b', '2026-01-01T00:00:00Z', '%20', '%E0%A4%A', '%zz', 'x=y'), fc.stringMatching(/^[a-zA-Z0-9_.~*!'()+,;:@$/?-]{0,8}$/));
const part = fc.oneof(fc.tuple(name, value).map(([key, text]) => `${key}=${text}`), name);
const query = fc.array(part, { maxLength: 30 }).map((parts) => parts.join('&'));

describe('the query parser', () => {
  test('when any query is read, then it gives what qs gives (names and values, repeats, escapes, brackets, prototype names)', () => {
    fc.assert(
      fc.property(query, (text) => {
        expectSameReading(text);
      }),
      { numRuns: 2000 },
    );
  });

  test('when a query is names and values only, then it reads them as qs does: repeats as arrays, `+` as a space, no `=` as empty', () => {
    const read = parseQuery('limit=10&ids=a&ids=b&name=Ann+Lee&flag&x=1=2&&');
    expect(read).toStrictEqual({ limit: '10', ids: ['a', 'b'], name: 'Ann Lee', flag: '', x: '1=2' });
    expect(read).toStrictEqual(extended('limit=10&ids=a&ids=b&name=Ann+Lee&flag&x=1=2&&'));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
  });

  test('when a URL has no query (Express passes null) or an empty one, then it reads as no parameters', () => {
    for (const none of [null, undefined, '']) expect(parseQuery(none)).toStrictEqual({});
    expectSameReading('');
  });

  test('when a name repeats past qs\'s array limit or the query holds more than its parameter limit, then the outcome is still qs\'s', () => {
    for (let times = 1; times <= 25; times++) expectSameReading(Array.from({ length: times }, (_, i) => `a=${i}`).join('&'));
    expectSameReading(Array.from({ length: 1200 }, (_, i) => `p${i}=1`).join('&'));
    expectSameReading(Array.from({ length: 1200 }, () => 'a').join('&'));
  });
});
