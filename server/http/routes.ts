/**
 * Dispatches each request to the handler of its operation. The contract validator has already found the
 * operation (`req.openapi`, with the decoded path parameters) and checked the request against it, so the
 * handler is looked up by that operation's ID: what is validated and what runs can never be two different
 * operations, and no second walk over ~170 routes happens (Express's router matched its routes one by one,
 * a few percent of a cheap request in `make bench`). Every operation of the contract must have a handler,
 * checked when the server starts (and by the compiler, through `Handlers`).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { FileBody, type Handler, type Handlers, type OperationId, type RequestContext, type Services } from '../handlers/types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface OpenApiDocument {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], { operationId?: string }>>>;
}

/** What the validator leaves on a request it matched to an operation. */
interface Matched {
  openapi?: { schema?: { operationId?: string }; pathParams?: Record<string, string> };
}

export function operationRoutes(document: OpenApiDocument, handlers: Handlers, services: Services): RequestHandler {
  const byOperation = new Map<string, Handler<OperationId>>();
  for (const operations of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operationId = operations[method]?.operationId as OperationId | undefined;
      if (!operationId) continue;
      const handler = handlers[operationId] as Handler<OperationId> | undefined;
      if (!handler) throw new Error(`No handler for operation ${operationId}`);
      byOperation.set(operationId, handler);
    }
  }
  return async (req: Request, res: Response, next: NextFunction) => {
    const { openapi } = req as Request & Matched;
    const handler = openapi?.schema?.operationId === undefined ? undefined : byOperation.get(openapi.schema.operationId);
    if (!handler) return next();
    const result: { status: number; body?: unknown } = (await handler({
      path: (openapi!.pathParams ?? {}) as never,
      query: req.query as never,
      body: req.body as never,
      context: res.locals.context as RequestContext,
      services,
    })) as never;
    res.status(result.status);
    if (result.body === undefined) res.end();
    else if (Buffer.isBuffer(result.body)) res.type('png').send(result.body);
    else if (result.body instanceof FileBody) await sendFile(res, result.body);
    else res.json(result.body);
  };
}

/** Streams a file: a client that goes away ends the read, and a read that fails cuts the response short. */
async function sendFile(res: Response, file: FileBody): Promise<void> {
  res.type(file.type);
  res.attachment(file.filename);
  try {
    await pipeline(file.stream, res);
  } catch {
    // Headers are sent by now: the client sees a cut connection rather than a whole file.
    res.destroy();
  }
}
