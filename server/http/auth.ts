/**
 * Server-side authentication: `X-App-Id` and `X-App-Token` name an API key, and the key names the one
 * project the request acts in. Management authentication: `X-Management-Id` and `X-Management-Token`
 * name the organization's management key, which acts on no project by itself. Every failure to
 * authenticate is counted against the client's address (server/http/rate-limit.ts) before its 401 goes out.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../handlers/types.js';
import { TokenRegistry, type IssuedToken } from '../oauth.js';
import { sendError } from './errors.js';
import type { FailedAuthenticationLimit } from './rate-limit.js';
import { FRESH } from '../store/fresh.js';

/** Answers 401, unless this failure puts the client's address over its limit (then 429). */
function unauthorized(failures: FailedAuthenticationLimit, req: Request, res: Response, details: string): void {
  failures.failed(req, res, () => sendError(res, 401, 'unauthorized', 'Unauthorized', details));
}

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

/** Finds the API key with an application ID, in the registry of projects' keys. */
export type ApiKeyLookup = (appId: string) => Promise<ApiKey | undefined>;

export interface ManagementKey {
  id: string;
  token: string;
}

/** The token if it is active and its key still exists in its project; when the key is gone, so are its tokens. */
async function liveToken(lookup: ApiKeyLookup, tokens: TokenRegistry, value: string): Promise<IssuedToken | undefined> {
  const token = await tokens.active(value);
  if (!token) return undefined;
  const key = await lookup(token.apiKey.appId);
  if (key && key.projectId === token.projectId) return token;
  await tokens.revokeAllOf(token.apiKey.appId);
  return undefined;
}

/**
 * A bearer token in place of the key: active, of a key that still exists in the token's project, and with
 * a scope that reaches the path. The request's context is marked as a token's, so it cannot obtain tokens.
 */
async function bearerAuth(lookup: ApiKeyLookup, tokens: TokenRegistry, failures: FailedAuthenticationLimit, value: string, req: Request, res: Response): Promise<boolean> {
  const token = await liveToken(lookup, tokens, value);
  if (!token) {
    unauthorized(failures, req, res, 'The bearer token is unknown, expired or revoked');
    return false;
  }
  if (!TokenRegistry.allows(token, req.originalUrl)) {
    sendError(res, 403, 'forbidden', 'Forbidden', `The token's scopes (${token.scopes.join(' ')}) do not reach ${req.baseUrl + req.path}`);
    return false;
  }
  res.locals.context = tokens.markBearer({ ...FRESH, ...(res.locals.context as RequestContext), projectId: token.projectId, apiKey: token.apiKey } satisfies RequestContext);
  return true;
}

export function serverSideAuth(lookup: ApiKeyLookup, tokens: TokenRegistry, failures: FailedAuthenticationLimit): RequestHandler {
  return async (req, res, next) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('Authorization') ?? '')?.[1];
    if (bearer && !req.get('X-App-Id') && !req.get('X-App-Token')) {
      if (await bearerAuth(lookup, tokens, failures, bearer, req, res)) next();
      return;
    }
    const appId = req.get('X-App-Id');
    const appToken = req.get('X-App-Token');
    if (!appId || !appToken) {
      return unauthorized(failures, req, res, 'Missing X-App-Id or X-App-Token header');
    }
    const key = await lookup(appId);
    if (!key || !sameSecret(appToken, key.appToken)) {
      return unauthorized(failures, req, res, 'Invalid X-App-Id or X-App-Token');
    }
    const context: RequestContext = {
      ...FRESH,
      ...(res.locals.context as RequestContext),
      projectId: key.projectId,
      apiKey: { name: key.name, appId: key.appId },
    };
    res.locals.context = context;
    next();
  };
}

export function managementAuth(key: ManagementKey | undefined, failures: FailedAuthenticationLimit): RequestHandler {
  return (req, res, next) => {
    const id = req.get('X-Management-Id');
    const token = req.get('X-Management-Token');
    if (!id || !token) {
      return unauthorized(failures, req, res, 'Missing X-Management-Id or X-Management-Token header');
    }
    if (!key || id !== key.id || !sameSecret(token, key.token)) {
      return unauthorized(failures, req, res, 'Invalid X-Management-Id or X-Management-Token');
    }
    const context: RequestContext = {
      ...FRESH,
      ...(res.locals.context as RequestContext),
      apiKey: { name: 'management', appId: key.id },
    };
    res.locals.context = context;
    next();
  };
}

/** A client-side key: public in browsers and apps, so it works only from its allowed origins. */
export interface ClientKey {
  name: string;
  appId: string;
  token: string;
  projectId: string;
  origins: readonly string[];
}

/**
 * Client-side authentication for `/client/v1`: the client key's headers, or a bearer token with a client-side
 * scope, and an origin header naming one of the allowed origins (the key's own; for a token, those of its
 * project's client keys).
 */
export function clientSideAuth(keys: readonly ClientKey[], tokens: TokenRegistry, lookup: ApiKeyLookup, failures: FailedAuthenticationLimit): RequestHandler {
  const byAppId = new Map(keys.map((key) => [key.appId, key]));
  return async (req, res, next) => {
    const appId = req.get('X-Client-Application-Id');
    const token = req.get('X-Client-Token');
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('Authorization') ?? '')?.[1];
    let caller: { projectId: string; apiKey: RequestContext['apiKey']; origins: readonly string[] };
    if (bearer && !appId && !token) {
      const issued = await liveToken(lookup, tokens, bearer);
      if (!issued) return unauthorized(failures, req, res, 'The bearer token is unknown, expired or revoked');
      if (!TokenRegistry.allows(issued, req.originalUrl)) {
        return sendError(res, 403, 'forbidden', 'Forbidden', `The token's scopes (${issued.scopes.join(' ')}) do not reach ${req.baseUrl + req.path}`);
      }
      const origins = keys.filter((key) => key.projectId === issued.projectId).flatMap((key) => key.origins);
      caller = { projectId: issued.projectId, apiKey: issued.apiKey, origins };
    } else {
      if (!appId || !token) {
        return unauthorized(failures, req, res, 'Missing X-Client-Application-Id or X-Client-Token header');
      }
      const key = byAppId.get(appId);
      if (!key || !sameSecret(token, key.token)) {
        return unauthorized(failures, req, res, 'Invalid X-Client-Application-Id or X-Client-Token');
      }
      caller = { projectId: key.projectId, apiKey: { name: key.name, appId: key.appId }, origins: key.origins };
    }
    const origin = req.get('origin');
    if (!origin) return sendError(res, 400, 'missing_origin', 'Missing origin', 'Client-side calls need an origin header');
    if (!caller.origins.includes(origin)) {
      return sendError(res, 403, 'origin_not_allowed', 'Origin not allowed', `${origin} is not an allowed origin of this client key`);
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    const context = { ...FRESH, ...(res.locals.context as RequestContext), projectId: caller.projectId, apiKey: caller.apiKey } satisfies RequestContext;
    res.locals.context = bearer && !appId && !token ? tokens.markBearer(context) : context;
    next();
  };
}

/**
 * Browsers ask before a client-side call with custom headers (a CORS preflight, without credentials).
 * Origins that some client key allows get the headers they need; the call itself is checked in full.
 */
export function clientPreflight(keys: readonly ClientKey[]): RequestHandler {
  const allowed = new Set(keys.flatMap((key) => key.origins));
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const origin = req.get('origin');
    if (origin && allowed.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Client-Application-Id, X-Client-Token');
      res.setHeader('Access-Control-Max-Age', '600');
      res.setHeader('Vary', 'Origin');
    }
    res.status(204).end();
  };
}
