/**
 * What the request log and the metrics say about a finished request, read the same way by both: which
 * operation it was, which project it acted in, how long it took.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../handlers/types.js';

/** What the contract validator leaves on a request it matched to an operation. */
interface Matched {
  openapi?: { schema?: { operationId?: string } };
}

/**
 * The operation's ID from the contract, or the name the server's own endpoints give themselves
 * (`healthz`, `docs`…); undefined for a request refused before its operation was known (authentication,
 * rate limits, a path the contract does not have).
 */
export function operationOf(req: Request, res: Response): string | undefined {
  return (req as Request & Matched).openapi?.schema?.operationId ?? (res.locals.operation as string | undefined);
}

/** Names a request to one of the server's own endpoints, which the contract does not describe. */
export function nameOperation(name: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.operation = name;
    next();
  };
}

/** The project the caller authenticated for; undefined before authentication, and for management calls. */
export function projectOf(res: Response): string | undefined {
  return (res.locals.context as RequestContext | undefined)?.projectId || undefined;
}

/** Notes when the request came in; the first of the log and the metrics to see it does. */
export function markStart(res: Response): void {
  res.locals.startedAt ??= performance.now();
}

export function elapsedMs(res: Response): number {
  return performance.now() - ((res.locals.startedAt as number | undefined) ?? performance.now());
}

/** Whether the client went away before the whole response was sent. */
export function aborted(res: Response): boolean {
  return !res.writableFinished;
}

/** Paths only: a query string can carry customers' emails and other data that does not belong in logs. */
export function pathOf(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
