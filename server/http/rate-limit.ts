import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { sendError } from './errors.js';

/** Limits each API key (or, for public routes, each client address) to `perMinute` requests a minute; 0 turns the limit off. */
export function rateLimitPerKey(perMinute: number): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (req, res) => String(res.locals.context?.apiKey.appId || `ip:${ipKeyGenerator(req.ip ?? '')}`),
    handler: (_req, res) =>
      sendError(res, 429, 'too_many_requests', 'Too Many Requests', `More than ${perMinute} requests a minute from this API key`),
  });
}
