/**
 * Several middlewares run as one. Express 5's router gives every middleware a layer of its own: a path
 * match, a `next` closure, a check of the returned value for a promise. A request to the API passed some
 * thirty of them before its handler, and profiling `make bench` put the router's own work at about a fifth
 * of a cheap request. The middlewares that always run one after another, on every path, are handed to
 * Express as one: they run in order, `next()` goes to the following one, and `next(error)`, a throw or a
 * rejected promise leaves the sequence for Express's error handling, as a layer of their own would.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function sequence(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.some((handler) => handler.length > 3)) throw new Error('An error-handling middleware cannot run in a sequence');
  const steps = [...handlers];
  const ran = (req: Request, res: Response, done: NextFunction): void => {
    let at = 0;
    const next = (error?: unknown): void => {
      // Any truthy value leaves the sequence for Express to read: an error, or its 'route' and 'router' (skip the
      // rest). A falsy one is no error, as Express reads it.
      if (error) return done(error);
      const handler = steps[at++];
      if (handler === undefined) return done();
      try {
        const returned = handler(req, res, next) as unknown;
        if (returned instanceof Promise) returned.catch((rejected: unknown) => done(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
  return ran;
}
