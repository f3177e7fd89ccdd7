/**
 * Dispatches each request to the handler of its operation. The contract validator has already found the
 * operation (`req.openapi`, with the decoded path parameters) and checked the request against it, so the
 * handler is looked up by that operation's ID: what is validated and what runs can never be two different
 * operations, and no second walk over ~170 routes happens (Express's router matched its routes one by one,
 * a few percent of a cheap request in `make bench`). Every operation of the contract must have a handler,
 * checked when the server starts (and by the compiler, through `Handlers`).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
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
    else sendJson(req, res, result.body);
  };
}

/** Express's own `res.json`, which the response validator replaces on each response it checks. */
const expressJson = express.response.json;
/** The type `res.json` gives a JSON body (Express's default, with the charset its `send` adds). */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a JSON body with the headers and bytes `res.json` sends on this app (no ETag, no JSON settings, no
 * conditional requests: see app.ts), writing them directly instead of through Express's `json` and `send`,
 * which look up app settings, parse the content type back to add its charset and check freshness on every
 * response (about a tenth of the way in and out of a cheap request in `make bench`'s profiles). A status
 * without a body (204, 205, 304), a response whose `json` was replaced (the response validator checks the
 * body there) and headers set before go through `res.json`, as before.
 */
export function sendJson(req: Request, res: Response, body: unknown): void {
  const status = res.statusCode;
  if (res.json !== expressJson || status === 204 || status === 205 || status === 304 || res.hasHeader('content-type')) {
    res.json(body);
    return;
  }
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) {
    // What Express sends for a value JSON has no text for: the type, and no body.
    res.json(body);
    return;
  }
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  if (req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
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
