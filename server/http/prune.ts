/**
 * Takes the fields a request body's schema does not name out of the body, after the validator has accepted
 * it and before a handler sees it (see server/contract/schema-pruner.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { SchemaPruner } from '../contract/schema-pruner.js';

/** What the validator leaves on a request it matched to an operation. */
interface Matched {
  openapi?: { openApiRoute?: string };
}

export function pruneUnknownFields(contract: Record<string, unknown>) {
  const pruner = new SchemaPruner(contract);
  const pointers = new Map<string, string | undefined>();
  return (req: Request, _res: Response, next: NextFunction) => {
    const route = (req as Request & Matched).openapi?.openApiRoute;
    if (route === undefined || req.body === undefined || req.body === null || typeof req.body !== 'object') return next();
    const key = `${req.method} ${route}`;
    if (!pointers.has(key)) pointers.set(key, pruner.bodyPointer(route, req.method));
    const pointer = pointers.get(key);
    if (pointer !== undefined) req.body = pruner.prune(req.body, pointer);
    next();
  };
}
