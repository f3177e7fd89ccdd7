/**
 * Mounts one Express route per operation of the contract, calling the handler with the same
 * operationId. Literal path segments are mounted before parameters, so `/v1/loyalties/members/...`
 * is never taken for `/v1/loyalties/{campaignId}/...`.
 */
import { Router, type Request, type Response } from 'express';
import type { Handler, Handlers, OperationId, RequestContext, Services } from '../handlers/types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface OpenApiDocument {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], { operationId?: string }>>>;
}

function specificity(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith('{');
    const pb = sb[i]!.startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return sb.length - sa.length;
}

export function operationRoutes(document: OpenApiDocument, handlers: Handlers, services: Services): Router {
  const router = Router();
  for (const path of Object.keys(document.paths).sort(specificity)) {
    const expressPath = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of METHODS) {
      const operationId = document.paths[path]?.[method]?.operationId as OperationId | undefined;
      if (!operationId) continue;
      const handler = handlers[operationId] as Handler<OperationId> | undefined;
      if (!handler) throw new Error(`No handler for operation ${operationId}`);
      router[method](expressPath, async (req: Request, res: Response) => {
        const result: { status: number; body?: unknown } = await handler({
          path: req.params as never,
          query: req.query as never,
          body: req.body as never,
          context: res.locals.context as RequestContext,
          services,
        }) as never;
        res.status(result.status);
        if (result.body === undefined) res.end();
        else if (Buffer.isBuffer(result.body)) res.type('png').send(result.body);
        else res.json(result.body);
      });
    }
  }
  return router;
}
