import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';
import { storable, UNSTORABLE, unkeptValueIn } from './kept-values.js';

/**
 * The validator refuses a query value holding any raw RFC 3986 reserved character, yet ordinary clients
 * send some raw: HTML forms and URLSearchParams write a space as `+`, and encodeURIComponent (which
 * openapi-fetch uses) leaves `!'()*` as they are. Percent-encoding those few before validation means the
 * same thing to every parser and lets such clients search for "O'Brien (VIP)".
 */
const LEFT_RAW = /[!'()*+]/g;

function encodeQuery(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url.slice(start + 1).replace(LEFT_RAW, (char) => (char === '+' ? '%20' : `%${char.charCodeAt(0).toString(16).toUpperCase()}`));
  return `${url.slice(0, start + 1)}${query}`;
}

export const normalizeQueryEncoding: RequestHandler = (req, _res, next) => {
  req.url = encodeQuery(req.url);
  req.originalUrl = encodeQuery(req.originalUrl);
  next();
};

/**
 * A path or query holding text no store keeps (a NUL, an unpaired surrogate: http/kept-values.ts) is refused before it
 * reaches a lookup. Runs after the query is parsed.
 */
export const refuseUnstorableText: RequestHandler = (req, _res, next) => {
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    // Not percent-decodable (a cut escape, bytes that are not UTF-8): the router answers such paths itself.
    return next();
  }
  if (!storable(path)) return next(new HttpError(400, 'invalid_payload', 'Invalid payload', `The path ${UNSTORABLE}`));
  const query = unkeptValueIn(req.query, false);
  if (query !== undefined) return next(new HttpError(400, 'invalid_query_params', 'Invalid query params', `'${query.where}' ${query.why}`));
  next();
};

/**
 * A query number that is not finite is refused. The validator turns `limit=Infinity` (or `1e400`) into
 * Infinity, and AJV's coercion lets that through `maximum: 100`; a list then read it as a page size. Runs
 * after the validator, where the query's numbers are numbers.
 */
export const refuseNonFiniteQueryNumbers: RequestHandler = (req, _res, next) => {
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    const values = Array.isArray(value) ? (value as unknown[]) : [value];
    if (values.some((each) => typeof each === 'number' && !Number.isFinite(each))) {
      return next(new HttpError(400, 'invalid_query_params', 'Invalid query params', `'query/${name}' must be a finite number`));
    }
  }
  next();
};
