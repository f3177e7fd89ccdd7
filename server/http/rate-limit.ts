/**
 * Rate limits, all made with express-rate-limit, and all answering 429 in the error shape with
 * `Retry-After` and the IETF `RateLimit` and `RateLimit-Policy` headers (draft 8: each limit is named, so a
 * client can tell which one it met):
 * - `requests`: requests a minute per API key (or per client address where there is no key), off unless set;
 * - `failed-authentication`: failed authentications a minute per client address, on by default, so that keys
 *   cannot be guessed at speed; once an address is over, it gets 429 whatever it sends, right keys included,
 *   until its minute is up (else a 429 for wrong keys and a 200 for the right one would still tell them apart);
 * - `tokens`: OAuth tokens issued an hour per API key, which bounds how many tokens can be alive at once.
 *
 * The counters are in memory by default; given shared stores (http/rate-limit-postgres.ts, with DATABASE_URL),
 * each limit holds across every instance that shares them.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, MemoryStore, rateLimit, type Options, type Store } from 'express-rate-limit';
import type { RequestContext } from '../handlers/types.js';
import { sendError } from './errors.js';
import { FRESH } from '../store/fresh.js';

/** The client address a limit counts for: the socket's address (IPv6 by its /56, as one client's). */
export function clientAddress(req: Request): string {
  return `ip:${ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;
}

/** Where a limit's counters are kept, by the limit's name; express-rate-limit's memory store when not given. */
export type CounterStores = (identifier: string) => Store & Required<Pick<Store, 'get'>>;

/** The limit's options for where its counters are kept. */
function kept(identifier: string, stores: CounterStores | undefined): Partial<Options> {
  return { identifier, ...(stores && { store: stores(identifier) }) };
}

const common: Partial<Options> = {
  standardHeaders: 'draft-8',
  legacyHeaders: false,
  // Forwarded-for headers are not trusted (the server does not know its proxies), so the check that warns about
  // them has nothing to say.
  validate: { xForwardedForHeader: false },
};

/** Limits each API key (or, for public routes, each client address) to `perMinute` requests a minute; 0 turns the limit off. */
export function rateLimitPerKey(perMinute: number, stores?: CounterStores): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
    ...FRESH,
    ...common,
    windowMs: 60_000,
    limit: perMinute,
    ...kept('requests', stores),
    keyGenerator: (req, res) => String((res.locals.context as RequestContext | undefined)?.apiKey.appId || clientAddress(req)),
    handler: (_req, res) =>
      sendError(res, 429, 'too_many_requests', 'Too Many Requests', `More than ${perMinute} requests a minute from this API key; retry after the seconds in Retry-After`),
  });
}

/** The window failed authentications are counted in. */
const FAILURE_WINDOW_MS = 60_000;

/**
 * Counts failed authentications per client address. `gate` runs before authentication and turns away an
 * address that is over its limit; authentication calls `failed` instead of answering 401 itself, and the
 * 401 goes out (with the limit's headers) unless this failure put the address over, which is a 429.
 * Successful requests are never counted. `perMinute` 0 turns the limit off.
 */
export interface FailedAuthenticationLimit {
  gate: RequestHandler;
  failed(req: Request, res: Response, unauthorized: () => void): void;
}

export function failedAuthenticationLimit(perMinute: number, stores?: CounterStores): FailedAuthenticationLimit {
  if (perMinute <= 0) return { gate: (_req, _res, next) => next(), failed: (_req, _res, unauthorized) => unauthorized() };
  const store = stores?.('failed-authentication') ?? new MemoryStore();
  const count = rateLimit({
    ...FRESH,
    ...common,
    windowMs: FAILURE_WINDOW_MS,
    limit: perMinute,
    store,
    identifier: 'failed-authentication',
    keyGenerator: (req) => clientAddress(req),
    handler: (_req, res) =>
      sendError(
        res,
        429,
        'too_many_requests',
        'Too Many Requests',
        `More than ${perMinute} failed authentications a minute from this address; retry after the seconds in Retry-After`,
      ),
  });
  const consult: RequestHandler = async (req, res, next) => {
    const seen = await store.get(clientAddress(req));
    if (seen && seen.totalHits >= perMinute) return count(req, res, next);
    next();
  };
  // Counters of this process alone: once a whole window has passed since the last failure counted here, every
  // counter has expired (a window starts at or before its last failure), so the gate lets requests through
  // without asking the store. Counters shared by instances count failures seen elsewhere, and are always asked.
  const local = stores === undefined;
  let lastFailure = Number.NEGATIVE_INFINITY;
  return {
    gate: (req, res, next) => {
      if (local && Date.now() - lastFailure >= FAILURE_WINDOW_MS) return next();
      return consult(req, res, next);
    },
    failed: (req, res, unauthorized) => {
      lastFailure = Date.now();
      void count(req, res, () => unauthorized());
    },
  };
}

/** Limits the OAuth tokens each API key obtains to `perHour` an hour. */
export function tokenIssueLimit(perHour: number, stores?: CounterStores): RequestHandler {
  if (perHour <= 0) return (_req, _res, next) => next();
  return rateLimit({
    ...FRESH,
    ...common,
    windowMs: 3_600_000,
    limit: perHour,
    ...kept('tokens', stores),
    keyGenerator: (req, res) => String((res.locals.context as RequestContext | undefined)?.apiKey.appId || clientAddress(req)),
    handler: (_req, res) =>
      sendError(res, 429, 'too_many_requests', 'Too Many Requests', `More than ${perHour} tokens an hour for this API key; retry after the seconds in Retry-After`),
  });
}
