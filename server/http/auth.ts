/**
 * Server-side authentication: `X-App-Id` and `X-App-Token` name an API key, and the key names the one
 * project the request acts in.
 */
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RequestContext } from '../handlers/types.js';
import { sendError } from './errors.js';

export interface ApiKey {
  name: string;
  appId: string;
  appToken: string;
  projectId: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function serverSideAuth(keys: readonly ApiKey[]): RequestHandler {
  const byAppId = new Map(keys.map((key) => [key.appId, key]));
  return (req, res, next) => {
    const appId = req.get('X-App-Id');
    const appToken = req.get('X-App-Token');
    if (!appId || !appToken) {
      return sendError(res, 401, 'unauthorized', 'Unauthorized', 'Missing X-App-Id or X-App-Token header');
    }
    const key = byAppId.get(appId);
    if (!key || !sameSecret(appToken, key.appToken)) {
      return sendError(res, 401, 'unauthorized', 'Unauthorized', 'Invalid X-App-Id or X-App-Token');
    }
    const context: RequestContext = {
      ...(res.locals.context as RequestContext),
      projectId: key.projectId,
      apiKey: { name: key.name, appId: key.appId },
    };
    res.locals.context = context;
    next();
  };
}
