/**
 * Deliberately broken variants of the reference server, each one fault a real implementation could have,
 * made by wrapping the real app in one small Express middleware. They exist to prove the contract kit
 * catches each fault.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Credentials } from '../contract/target.js';

type Body = Record<string, unknown>;
type Middleware = (req: Request, res: Response, next: NextFunction) => void;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Rewrites every JSON body the app sends. */
function rewriteJson(rewrite: (body: unknown, req: Request) => unknown): Middleware {
  return (req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => json(rewrite(structuredClone(body), req));
    next();
  };
}

/** The array a list envelope holds, found through its `data_ref`. */
function listItems(body: unknown): Body[] | undefined {
  if (!isObject(body) || body.object !== 'list' || typeof body.data_ref !== 'string') return undefined;
  const items = body[body.data_ref];
  return Array.isArray(items) ? (items as Body[]) : undefined;
}

/** Accepts any `limit`: out-of-range values are quietly clamped instead of rejected. */
const ignoresLimitBounds: Middleware = (req, _res, next) => {
  const url = new URL(req.url, 'http://x');
  const limit = url.searchParams.get('limit');
  if (limit !== null) {
    const asked = Math.trunc(Number(limit));
    url.searchParams.set('limit', String(Number.isFinite(asked) ? Math.min(100, Math.max(1, asked)) : 10));
    req.url = `${url.pathname}${url.search}`;
  }
  next();
};

/** Names every object's type in the plural (`products` for a product). */
const wrongObjectValue = rewriteJson((body) => {
  if (isObject(body) && typeof body.object === 'string' && body.object !== 'list') body.object = `${body.object}s`;
  return body;
});

/** Counts `total` over the page instead of over every match. */
const totalPerPage = rewriteJson((body) => {
  const items = listItems(body);
  if (items && isObject(body) && typeof body.total === 'number') body.total = items.length;
  return body;
});

/** Lets any request in: missing or wrong credentials are replaced by the valid key. */
function skipsAuthentication(credentials: Credentials): Middleware {
  return (req, _res, next) => {
    req.headers['x-app-id'] = credentials.appId;
    req.headers['x-app-token'] = credentials.appToken;
    next();
  };
}

/** Answers 500 where it should say 400. */
const fails5xxOnBadInput: Middleware = (_req, res, next) => {
  const status = res.status.bind(res);
  res.status = (code: number) => status(code === 400 ? 500 : code);
  next();
};

/**
 * Cursor pages that overlap: the page after a cursor starts again with the item the cursor names, as a
 * `>=` in place of `>` would do.
 */
function repeatsAcrossCursorPages(): Middleware {
  const lastItemOfCursor = new Map<string, Body>();
  return rewriteJson((body, req) => {
    const items = listItems(body);
    if (!items || !isObject(body)) return body;
    const cursor = new URL(req.originalUrl, 'http://x').searchParams.get('starting_after_id');
    const repeated = cursor ? lastItemOfCursor.get(cursor) : undefined;
    if (repeated) {
      // The page keeps its length: the repeated item pushes the last one onto the next page, as `>=` would.
      items.unshift(repeated);
      if (body.has_more === true && items.length > 1) {
        items.pop();
        body.more_starting_after = items.at(-1)!.id;
      }
    }
    if (typeof body.more_starting_after === 'string' && items.length > 0) lastItemOfCursor.set(body.more_starting_after, items.at(-1)!);
    return body;
  });
}

/** Sends `created_at` as epoch milliseconds, a type the contract does not allow. */
const undocumentedFieldType = rewriteJson((body) => {
  for (const item of [body, ...(listItems(body) ?? [])]) {
    if (isObject(item) && typeof item.created_at === 'string') item.created_at = Date.parse(item.created_at);
  }
  return body;
});

/** Every object it returns carries one more field than the contract names (an internal field left in). */
const addsUndocumentedField = rewriteJson((body) => {
  for (const item of [body, ...(listItems(body) ?? [])]) {
    if (isObject(item) && typeof item.object === 'string') item.internal_revision = 7;
  }
  return body;
});

/** Never says when an object was made: `created_at` is missing wherever it would be. */
const dropsRequiredField = rewriteJson((body) => {
  for (const item of [body, ...(listItems(body) ?? [])]) {
    if (isObject(item)) delete item.created_at;
  }
  return body;
});

export const VARIANTS = [
  'adds-undocumented-field',
  'drops-required-field',
  'ignores-limit-bounds',
  'wrong-object-value',
  'total-per-page',
  'skips-authentication',
  '5xx-on-bad-input',
  'repeats-across-cursor-pages',
  'undocumented-field-type',
] as const;
export type Variant = (typeof VARIANTS)[number];

/** The reference app behind the named fault. */
export function brokenVariant(variant: Variant, app: Express, credentials: Credentials): Express {
  const faults: Record<Variant, () => Middleware> = {
    'adds-undocumented-field': () => addsUndocumentedField,
    'drops-required-field': () => dropsRequiredField,
    'ignores-limit-bounds': () => ignoresLimitBounds,
    'wrong-object-value': () => wrongObjectValue,
    'total-per-page': () => totalPerPage,
    'skips-authentication': () => skipsAuthentication(credentials),
    '5xx-on-bad-input': () => fails5xxOnBadInput,
    'repeats-across-cursor-pages': repeatsAcrossCursorPages,
    'undocumented-field-type': () => undocumentedFieldType,
  };
  const outer = express();
  outer.disable('x-powered-by');
  outer.use(faults[variant]());
  outer.use(app);
  return outer;
}
