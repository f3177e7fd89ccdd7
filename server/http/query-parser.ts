/**
 * The app's query parser: what Express's `extended` parser gives (qs, prototype keys allowed), read the cheap
 * way when the query is only names and values.
 *
 * qs was 3 to 5% of a voucher list request in `make bench`, for `limit=10`. Node's own `querystring` reads a
 * query with no bracket (qs nests on those) and no percent escape (the two decode invalid escapes differently)
 * to the same names and values, repeated names as arrays, `+` as a space and a name without `=` as an empty
 * value. Where the two could differ, the query goes to qs: an empty name (qs drops it), a name Object.prototype
 * has (qs gives such names special handling), a name repeated more than qs's array limit of 20 (qs then makes
 * an object of the values) and a query long enough to hold qs's 1 000 parameters.
 * tests/unit/query-parser.test.ts checks the outcome against qs for generated queries.
 */
import { parse as parseNamesAndValues } from 'node:querystring';
import qs from 'qs';

/** Express's `extended` parser's options. */
const EXTENDED: qs.IParseOptions = { allowPrototypes: true };

/** What qs reads more into than names and values: brackets and percent escapes. */
const NOT_PLAIN = /[[\]%]/;

/** qs's `arrayLimit`: a name given more times than this reads as an object of its values, not an array. */
const ARRAY_LIMIT = 20;

/** Shorter than the shortest query of 1 000 parameters (`a&a&…`), where qs's parameter limit starts to count. */
const SHORT = 1999;

/** `text` is the URL's query, without its `?`; Express passes null for a URL that has none. */
export function parseQuery(text: string | null | undefined): Record<string, unknown> {
  if (typeof text !== 'string') return qs.parse('', EXTENDED);
  if (text.length >= SHORT || NOT_PLAIN.test(text)) return qs.parse(text, EXTENDED);
  const parsed = parseNamesAndValues(text);
  const query: Record<string, unknown> = {};
  for (const name of Object.keys(parsed)) {
    const value = parsed[name];
    if (name === '' || name in Object.prototype || (Array.isArray(value) && value.length > ARRAY_LIMIT)) return qs.parse(text, EXTENDED);
    query[name] = value;
  }
  return query;
}
